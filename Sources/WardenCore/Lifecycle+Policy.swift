/// A policy reload: new settings apply from now on.
extension Lifecycle {
    /// Apps no longer declared are terminated gracefully (`policyRemoved`); new apps start
    /// not running; existing apps take their new settings, and fetches are planned again.
    mutating func policyChanged(_ newPolicy: Policy, at now: Instant, _ out: inout [LifecycleAction]) {
        var declared: [String: AppPolicy] = [:]
        for app in newPolicy.apps where declared[app.name] == nil {
            declared[app.name] = app
        }
        let before = Dictionary(appPolicies.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let inForce = Set(records.filter(\.inPolicy).map(\.name))
        out.append(
            .journal(
                JournalRecord(
                    app: Self.systemJournalName, time: now,
                    kind: .system(
                        .policyReloaded(
                            added: newPolicy.apps.map(\.name).filter { !inForce.contains($0) },
                            removed: records.map(\.name).filter { inForce.contains($0) && declared[$0] == nil },
                            changed: newPolicy.apps.map(\.name).filter { name in
                                inForce.contains(name) && before[name] != declared[name]
                            })))))
        replacePolicy(newPolicy)
        for index in records.indices {
            let name = records[index].name
            if let app = declared.removeValue(forKey: name) {
                records[index].apply(app)
                appPolicies[index] = app
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
            planFetch(records.count - 1, at: now, &out)
        }
    }
}
