/// Room before a launch (rule 9): an app whose expected size does not fit in what memory and
/// swap can give is given that room by the killer's order before it is spawned.
extension Lifecycle {
    /// Before the app at `index` is spawned: when its expected size
    /// (`LaunchMemoryHistory.expected`) is more than the room the last memory sample left — what
    /// could still be freed without killing (available memory plus what swap can still take)
    /// above `warning_enter`, plus what victims still dying give back — kills apps in rule 9's
    /// order (never a foreground or protected app, nor the app itself, which is not running)
    /// until what their kills give back covers the difference, or no app may be killed. An
    /// app never measured, a device not measured (levels reported, not sampled) and
    /// `[memory] make_room = false` make no room.
    mutating func makeRoomForLaunch(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard policy.memory.makeRoom, let expected = records[index].memoryHistory?.expected,
            let available = lastEffectiveAvailable, let total = deviceMemory
        else { return }
        let floor = memoryTracker.settings.warningEnter.bytes(ofTotal: total)
        dyingVictims.removeAll { now - $0.killedAt >= memoryTracker.settings.victimExitWait }
        let coming = dyingVictims.reduce(Int64(0)) { $0 + $1.bytes }
        let room = max(0, available + coming - floor)
        guard expected > room else { return }
        let name = records[index].name
        var freed: Int64 = 0
        var victims: [String] = []
        let order = policy.memory.killOrder
        weighMisses(at: now)
        while freed < expected - room,
            let victim = withKillableRecords({ records in
                VictimRanking.victimIndex(among: records, killForeground: false, order: order)
            })
        {
            let bytes = records[victim].reclaimable
            freed += bytes
            victims.append("\"\(records[victim].name)\" (\(DurationFormat.sizeString(bytes)))")
            dyingVictims.append(
                DyingVictim(app: records[victim].name, launch: records[victim].launch, bytes: bytes, killedAt: now))
            decide(
                victim,
                "Chosen to make room for the launch of \"\(name)\" (\(DurationFormat.sizeString(expected)) expected): the first in the memory killer's order.",
                at: now, &out)
            out.append(
                .journal(
                    JournalRecord(
                        app: records[victim].name, time: now, kind: .memoryKill(killReport(victim, figures: nil)))))
            terminate(victim, reason: .memoryPressure, because: "killed to make room for a launch", at: now, &out)
        }
        // The launch takes its room: a wake or launch decided before the next sample counts it gone.
        lastEffectiveAvailable = available - expected
        let killed =
            victims.isEmpty
            ? "no app may be killed, so it is launched without it"
            : "killed \(victims.joined(separator: ", ")), giving back \(DurationFormat.sizeString(freed))"
                + (freed < expected - room ? ", all that could be killed" : "")
        decide(
            index,
            "\(Self.madeRoomPrefix)\(name): \(DurationFormat.sizeString(expected)) expected, \(DurationFormat.sizeString(room)) free above warning_enter (\(DurationFormat.sizeString(floor))); \(killed).",
            at: now, &out)
    }

    /// Whether an open of `app` would weigh its expected size against the room the last memory
    /// sample left: it is not running, a size is learned for it and `make_room` is on. The
    /// daemon measures the device once before such an open, so that the room is today's.
    public func weighsRoomBeforeOpening(_ app: String) -> Bool {
        guard policy.memory.makeRoom, let index = indexByName[app] else { return false }
        return records[index].state == .notRunning && records[index].terminating == nil
            && records[index].memoryHistory?.expected != nil
    }

    /// How the room made before a launch is journaled, on the launching app.
    static let madeRoomPrefix = "Made room for "
}
