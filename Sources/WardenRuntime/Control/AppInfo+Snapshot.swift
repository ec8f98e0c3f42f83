import WardenAPI
import WardenCore

extension AppInfo {
    /// The app as the app list shows it: the core's `snapshot`, its processes and the CPU time of
    /// its running launch (nil for a suspended app or one not running), with the core's instants
    /// given as wall-clock times on `clock`.
    init(_ snapshot: AppSnapshot, pids: [Int32], cpuTime: Duration?, clock: WardenClock) {
        func wallMillis(_ instant: Instant) -> Int64 { clock.wallMillis(atElapsed: instant.sinceOrigin) }
        self.init(
            name: snapshot.name, state: AppInfo.State(snapshot.state), status: AppInfo.Status(snapshot.status),
            pids: pids,
            footprintBytes: snapshot.footprint, swappedBytes: snapshot.swappedBytes,
            reclaimableBytes: snapshot.reclaimableBytes,
            band: snapshot.band.map(AppInfo.Band.init),
            timeRemainingMillis: snapshot.taskTimeRemaining.map(\.milliseconds),
            nextWakeMillis: snapshot.nextFetchWake.map(wallMillis),
            openTasks: snapshot.openTasks.map { TaskInfo(id: $0.id, name: $0.name) },
            activities: snapshot.activities.map { ActivityInfo(id: $0.id, mode: $0.mode.rawValue) },
            windows: snapshot.windows.map {
                WindowInfo(
                    kind: $0.kind.rawValue, endMillis: $0.end.map(wallMillis), action: $0.action, device: $0.device)
            },
            heldResources: snapshot.heldResources, forceQuit: snapshot.isForceQuit,
            hasPreservedState: snapshot.hasPreservedState, cpuClass: snapshot.cpuClass?.rawValue,
            cpuTimeMillis: cpuTime?.milliseconds, backgroundCPUPercent: snapshot.backgroundCPUPercent,
            coldLaunches: snapshot.coldLaunches)
    }
}

extension DeviceInfo {
    /// The device as `GET /v1/device` shows it: the core's level and thresholds against the
    /// memory `measured` now (none where it cannot be measured), the last kills, newest first,
    /// and the cold launches.
    init(lifecycle: Lifecycle, measured sample: (available: Int64, total: Int64)?, recentKills kills: [KillInfo]) {
        let level = lifecycle.memoryLevel.rawValue
        guard let sample else {
            self.init(pressure: level, recentKills: kills, coldLaunches: lifecycle.coldLaunchCount)
            return
        }
        let settings = lifecycle.policy.memory
        let thresholds = DeviceInfo.Thresholds(
            warningEnterBytes: settings.warningEnter.bytes(ofTotal: sample.total),
            warningExitBytes: settings.warningExit.bytes(ofTotal: sample.total),
            criticalEnterBytes: settings.criticalEnter.bytes(ofTotal: sample.total),
            criticalExitBytes: settings.criticalExit.bytes(ofTotal: sample.total))
        self.init(
            pressure: level, availableBytes: sample.available, totalBytes: sample.total, thresholds: thresholds,
            recentKills: kills, coldLaunches: lifecycle.coldLaunchCount)
    }
}
