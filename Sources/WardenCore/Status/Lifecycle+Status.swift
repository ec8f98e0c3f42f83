/// Reported status, the watchdog (§1.5) and reconciling the model with what the runtime observed.
extension Lifecycle {
    /// `report-status`: for `status_source = "reported"` apps; publishes on change and re-arms
    /// the watchdog.
    mutating func reportStatus(
        _ app: String, status: AppStatus, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "report its status")
        guard !records[index].isManaged else {
            throw LifecycleError(
                .conflict,
                "App \"\(app)\" has its status managed by appwarden; only apps with status_source = \"reported\" report it."
            )
        }
        guard status == .foreground || status == .background else {
            throw LifecycleError(.invalid, "An app reports its status as foreground or background, not \(status).")
        }
        records[index].believedStatus = status
        publish(index, status, &out)
        arm(index, .watchdog, at: now + records[index].settings.watchdog.interval, &out)
    }

    /// The watchdog's interval ended without a report: nothing for an app believed to be in
    /// background, otherwise a scan of its processes.
    mutating func watchdogFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        let record = records[index]
        guard record.isRunning, record.terminating == nil, !record.isManaged else { return }
        if record.believedStatus == .background {
            decide(index, "Watchdog: believed in background, nothing to check.", at: now, &out)
            return
        }
        out.append(.scan(app: record.name))
    }

    /// The scan's outcome: still foreground re-arms; background publishes `background`; a failed
    /// scan publishes `unknown` and re-arms.
    mutating func scanResult(_ app: String, outcome: ScanOutcome, at now: Instant, _ out: inout [LifecycleAction]) {
        guard let index = indexByName[app], records[index].isRunning, records[index].terminating == nil,
            !records[index].isManaged
        else { return }
        let interval = records[index].settings.watchdog.interval
        switch outcome {
        case .foreground:
            decide(index, "Watchdog: still in the foreground.", at: now, &out)
            arm(index, .watchdog, at: now + interval, &out)
        case .background:
            decide(index, "Watchdog: found in background without a report.", at: now, &out)
            records[index].believedStatus = .background
            publish(index, .background, &out)
        case .error:
            decide(index, "Watchdog: the scan failed, the status is unknown.", at: now, &out)
            records[index].believedStatus = .unknown
            publish(index, .unknown, &out)
            arm(index, .watchdog, at: now + interval, &out)
        }
    }

    /// The app's group was found frozen or thawed behind appwarden's back: thaw a group that
    /// should run (or accept the freeze of an idle background app), re-freeze a suspended one.
    mutating func observedFrozen(_ app: String, frozen: Bool, at now: Instant, _ out: inout [LifecycleAction]) {
        guard let index = indexByName[app], records[index].isRunning, records[index].terminating == nil else { return }
        let record = records[index]
        if frozen {
            guard record.state != .suspended else { return }
            if record.state == .background && record.tasks.isEmpty && !record.hasOpenWindow && record.isManaged
                && record.heldResources.isEmpty && !record.holdsActivity
            {
                cancel(index, .backgroundGrace, &out)
                setState(index, .suspended, because: "found frozen while idle in background", at: now, &out)
            } else {
                decide(index, "Found frozen while it should run: thawed.", at: now, &out)
                out.append(.thaw(app: app))
            }
        } else if record.state == .suspended {
            decide(index, "Found thawed while suspended: frozen again.", at: now, &out)
            out.append(.freeze(app: app, guardPaths: guardPaths(of: index)))
        }
    }

    // MARK: Snapshots

    /// What `status` shows for one app; nil when the policy does not declare it.
    public func snapshot(of app: String, at now: Instant) -> AppSnapshot? {
        guard let index = indexByName[app], records[index].inPolicy else { return nil }
        return snapshot(index, at: now)
    }

    /// Every app the policy declares, in declaration order.
    public func snapshots(at now: Instant) -> [AppSnapshot] {
        var result: [AppSnapshot] = []
        result.reserveCapacity(records.count)
        for index in records.indices where records[index].inPolicy {
            result.append(snapshot(index, at: now))
        }
        return result
    }

    /// The windows open in `record`, with when each ends as its timer stands.
    private func openWindows(_ record: AppRecord) -> [AppSnapshot.OpenWindow] {
        guard record.hasOpenWindow else { return [] }
        return BackgroundWindow.allCases.filter { $0.isOpen(in: record) }.map { window in
            let event = window == .accessory ? record.accessoryWindowEvent : nil
            return AppSnapshot.OpenWindow(
                kind: window, end: record.timers[window.timer], action: event?.action, device: event?.device)
        }
    }

    private func snapshot(_ index: Int, at now: Instant) -> AppSnapshot {
        let record = records[index]
        return AppSnapshot(
            name: record.name,
            state: record.state,
            // A termination's `terminating` is the last status published; once the process is
            // gone the app has no status to show.
            status: record.isRunning ? record.publishedStatus : .unknown,
            launch: record.launch,
            footprint: record.isRunning ? record.footprint : 0,
            swappedBytes: record.isRunning ? record.swappedBytes : 0,
            reclaimableBytes: record.isRunning ? record.reclaimable : 0,
            band: record.isRunning ? record.band : nil,
            taskTimeRemaining: record.isInForeground || record.holdsActivity ? nil : record.budgetLeft(at: now),
            nextFetchWake: record.timers[.fetchWake],
            openTasks: record.tasks.map { AppSnapshot.OpenTask(id: $0.id, name: $0.name) },
            activities: record.activities.map { AppSnapshot.Activity(id: $0.id, mode: $0.mode) },
            heldResources: record.heldResources,
            isForceQuit: record.isForceQuit,
            hasPreservedState: record.hasPreservedState,
            isTerminating: record.terminating != nil,
            fetchWindowOpen: record.fetchWindowOpen,
            pushWindowOpen: record.pushWindowOpen,
            windows: openWindows(record),
            cpuClass: CPUClass(state: record.state, holdsActivity: record.holdsActivity),
            backgroundCPUPercent: record.isRunning ? record.cpuPercent : nil,
            coldLaunches: record.coldLaunches ?? 0
        )
    }
}
