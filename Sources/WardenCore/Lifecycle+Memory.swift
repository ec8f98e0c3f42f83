/// Memory: footprints, pressure levels, warnings (rule 8) and the killer (rule 9).
extension Lifecycle {
    /// The memory level the last sample or report left (rules 8 and 9).
    public var memoryLevel: PressureLevel { memoryTracker.level }

    /// The level a memory sample of `available` bytes out of `total` would lead to, without
    /// taking it: the daemon measures between sweeps and passes on what would change something.
    public func memoryLevel(afterSampleOf available: Int64, total: Int64) -> PressureLevel {
        var tracker = memoryTracker
        return tracker.update(available: available, total: total)
    }

    /// The amounts of available memory at which the level can change (`MemoryLevelTracker.boundaries`).
    public func memoryBoundaries(total: Int64) -> [Int64] {
        memoryTracker.boundaries(total: total)
    }

    /// `footprint`: what killing the app would give back; the suspended band's score follows it.
    mutating func footprint(_ app: String, bytes: Int64, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try appIndex(app)
        guard bytes >= 0 else {
            throw LifecycleError(.invalid, "The footprint of app \"\(app)\" cannot be negative (\(bytes) bytes).")
        }
        records[index].footprint = bytes
        updateScore(index, force: false, &out)
    }

    /// A level reported directly: warning or critical warns apps; critical kills one victim.
    mutating func pressure(_ level: PressureLevel, at now: Instant, _ out: inout [LifecycleAction]) {
        memoryTracker.report(level)
        react(to: level, at: now, &out)
    }

    /// A memory sample: the level follows the thresholds with hysteresis; while critical, each
    /// sample kills one victim.
    mutating func memorySample(available: Int64, total: Int64, at now: Instant, _ out: inout [LifecycleAction]) {
        let level = memoryTracker.update(available: available, total: total)
        react(to: level, at: now, &out)
    }

    private mutating func react(to level: PressureLevel, at now: Instant, _ out: inout [LifecycleAction]) {
        guard level >= .warning else { return }
        warnApps(at: now, &out)
        if level == .critical {
            killOneVictim(at: now, &out)
        }
    }

    /// Delivers a memory warning to every running, not suspended app not warned within its
    /// `warning_interval`.
    mutating func warnApps(at now: Instant, _ out: inout [LifecycleAction]) {
        // Fields are read in place: copying whole records on every sample dominated pressure handling.
        for index in records.indices {
            let state = records[index].state
            guard state != .notRunning, state != .suspended, records[index].terminating == nil else { continue }
            if let last = records[index].lastMemoryWarning,
                now - last < records[index].settings.memoryWarningInterval
            {
                continue
            }
            records[index].lastMemoryWarning = now
            out.append(.deliver(app: records[index].name, message: .memoryWarning))
        }
    }

    /// The candidates for the killer: every running app not already being terminated, read
    /// in place from the records; the indices are the records' own.
    var killableRecords: LazyFilterCollection<[AppRecord]> {
        records.lazy.filter { $0.state != .notRunning && $0.terminating == nil }
    }

    /// The candidates for the killer as `VictimRanking` lists them: `VictimRanking.rank` of
    /// them is the order in which critical pressure kills, one app per event.
    public func killCandidates() -> [KillCandidate] {
        killableRecords.map {
            KillCandidate(
                app: $0.name, band: $0.band, footprint: $0.footprint, lastUsed: $0.lastUsed,
                isProtected: $0.isProtected)
        }
    }

    /// Kills exactly one victim (rule 9), or journals that nobody may be killed.
    mutating func killOneVictim(at now: Instant, _ out: inout [LifecycleAction]) {
        guard
            let index = VictimRanking.victimIndex(
                among: killableRecords, killForeground: policy.memory.killForeground)
        else {
            out.append(
                .journal(
                    JournalRecord(
                        app: Self.systemJournalName, time: now,
                        kind: .decision("Memory is critical but no app may be killed."))))
            return
        }
        decide(index, Self.victimSentence(band(of: index)), at: now, &out)
        terminate(index, reason: .memoryPressure, because: "killed for memory pressure", at: now, &out)
    }

    private static func victimSentence(_ band: KillBand) -> String {
        switch band {
        case .suspended: "Chosen by the memory killer: largest suspended app."
        case .idleBackground: "Chosen by the memory killer: largest idle background app."
        case .backgroundWindow: "Chosen by the memory killer: largest app in a fetch or push window."
        case .backgroundTask: "Chosen by the memory killer: largest app running background tasks."
        case .foreground: "Chosen by the memory killer: largest foreground app, as a last resort."
        }
    }
}
