/// A policy reload: new settings apply from now on.
extension Lifecycle {
    /// Apps no longer declared are terminated gracefully (`policyRemoved`); new apps start
    /// not running; existing apps take their new settings, and fetches are planned again.
    /// A running app whose launch settings changed keeps its process unless `restartChanged`:
    /// then it is terminated gracefully (`policyChanged`) and, if it was in the foreground,
    /// opened again once it has exited. A change an earlier reload left for the next launch
    /// counts until that launch, so a later reload with `restartChanged` restarts the app. The
    /// difference is journaled under `appwarden`, one
    /// decision per app, and is the event's reply.
    mutating func policyChanged(
        _ newPolicy: Policy, restartChanged: Bool, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        let oldPolicy = policy
        let diff = PolicyDiff(
            from: oldPolicy, to: newPolicy,
            running: { name in self.indexByName[name].map { self.records[$0].isRunning } ?? false },
            restart: restartChanged,
            launchedWith: { name in
                self.indexByName[name].flatMap { index in
                    self.records[index].launchedWith?.applied(to: self.appPolicies[index])
                }
            })
        for sentence in diff.sentences {
            out.append(
                .journal(
                    JournalRecord(app: Self.systemJournalName, time: now, kind: .decision("Policy reload: \(sentence)"))
                ))
        }
        var declared: [String: AppPolicy] = [:]
        for app in newPolicy.apps where declared[app.name] == nil {
            declared[app.name] = app
        }
        out.append(
            .journal(
                JournalRecord(
                    app: Self.systemJournalName, time: now,
                    kind: .system(
                        .policyReloaded(added: diff.added, removed: diff.removed, changed: diff.changed.map(\.name))))))
        replacePolicy(newPolicy)
        let restarted = Set(diff.changed.filter { $0.outcome == .restarted }.map(\.name))
        for index in records.indices {
            let name = records[index].name
            if let app = declared.removeValue(forKey: name) {
                let oldCPU = appPolicies[index].cpu
                records[index].apply(app)
                appPolicies[index] = app
                resolveMemoryBounds(index)
                if restarted.contains(name) {
                    records[index].reopenAfterExit = records[index].isInForeground
                    terminate(index, reason: .policyChanged, because: "restarted by a policy reload", at: now, &out)
                } else {
                    // Memory limits and CPU controls take effect at once, in the running group.
                    updateGroupLimits(index, at: now, &out)
                    cpuSettingsChanged(index, from: oldCPU, at: now, &out)
                    endUndeclaredActivities(index, at: now, &out)
                }
            } else if records[index].inPolicy {
                records[index].inPolicy = false
                if records[index].isRunning {
                    terminate(index, reason: .policyRemoved, because: "removed from the policy", at: now, &out)
                }
                cancel(index, .pushSlot, &out)
            }
            planFetch(index, at: now, &out)
        }
        for app in newPolicy.apps {
            guard declared.removeValue(forKey: app.name) != nil else { continue }
            indexByName[app.name] = records.count
            records.append(AppRecord(policy: app))
            appPolicies.append(app)
            resolveMemoryBounds(records.count - 1)
            planFetch(records.count - 1, at: now, &out)
        }
        out.append(.reply(.policyChanged(diff)))
    }

    /// Opens an app again after a restart a policy reload asked for, if it was in the
    /// foreground; a locked screen leaves it closed, which the journal says.
    mutating func reopenIfAsked(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].reopenAfterExit else { return }
        records[index].reopenAfterExit = false
        do {
            try open(records[index].name, at: now, &out)
        } catch {
            decide(index, "Not opened again after its restart: \(error.message)", at: now, &out)
        }
    }
}
