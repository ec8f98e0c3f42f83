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

    /// Whether nothing the apps run can grow: every app suspended (frozen) or not running. The
    /// memory watch then polls slowly (`MemoryPollingSchedule`) and sweeps nothing but the
    /// periodic check of suspended apps.
    public var isQuiet: Bool {
        records.allSatisfy { $0.state == .notRunning || $0.state == .suspended }
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
        let previous = memoryTracker.level
        memoryTracker.report(level)
        journalLevelChange(from: previous, figures: nil, at: now, &out)
        react(to: level, figures: nil, at: now, &out)
        levelChanged(from: previous, available: nil, &out)
    }

    /// A memory sample: the level follows the thresholds with hysteresis; while critical, each
    /// sample kills one victim.
    mutating func memorySample(available: Int64, total: Int64, at now: Instant, _ out: inout [LifecycleAction]) {
        // The thresholds this sample is compared with: those in force at the level before it.
        let figures = memoryTracker.figures(available: available, total: total)
        let previous = memoryTracker.level
        let level = memoryTracker.update(available: available, total: total)
        journalLevelChange(from: previous, figures: figures, at: now, &out)
        react(to: level, figures: figures, at: now, &out)
        levelChanged(from: previous, available: available, &out)
    }

    /// Runs the `on_pressure` hook when the level is no longer `previous`, after the kill the
    /// new level may have led to.
    private mutating func levelChanged(from previous: PressureLevel, available: Int64?, _ out: inout [LifecycleAction])
    {
        let level = memoryTracker.level
        guard level != previous, let command = policy.hooks.onPressure else { return }
        out.append(
            .runHook(
                HookInvocation(
                    kind: .pressure, command: command, timeout: policy.hooks.timeout, level: level,
                    previousLevel: previous, available: available)))
    }

    private mutating func react(
        to level: PressureLevel, figures: MemoryFigures?, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard level >= .warning else { return }
        warnApps(at: now, &out)
        if level == .critical {
            killOneVictim(figures: figures, at: now, &out)
        }
    }

    /// Journals a change of the pressure level, with the figures that made it change.
    private func journalLevelChange(
        from previous: PressureLevel, figures: MemoryFigures?, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard memoryTracker.level != previous else { return }
        out.append(
            .journal(
                JournalRecord(
                    app: Self.systemJournalName, time: now,
                    kind: .system(.pressureChanged(from: previous, to: memoryTracker.level, figures: figures)))))
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

    /// Kills exactly one victim (rule 9), or journals that nobody may be killed. The victim's
    /// journal says why: the figures, its band, and every other candidate with the reason it
    /// was passed over.
    mutating func killOneVictim(figures: MemoryFigures? = nil, at now: Instant, _ out: inout [LifecycleAction]) {
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
        out.append(
            .journal(
                JournalRecord(
                    app: records[index].name, time: now, kind: .memoryKill(killReport(index, figures: figures)))))
        terminate(index, reason: .memoryPressure, because: "killed for memory pressure", at: now, &out)
    }

    /// The report of the kill of `records[victim]`: the others in kill order, then those that
    /// may not be killed, each with `VictimRanking.whyNotChosen`.
    private func killReport(_ victim: Int, figures: MemoryFigures?) -> MemoryKillReport {
        let killForeground = policy.memory.killForeground
        let candidates = killCandidates()
        let chosen = KillCandidate(
            app: records[victim].name, band: records[victim].band, footprint: records[victim].footprint,
            lastUsed: records[victim].lastUsed, isProtected: records[victim].isProtected)
        let eligible = VictimRanking.rank(candidates, killForeground: killForeground)
        let others = eligible + candidates.filter { !VictimRanking.isEligible($0, killForeground: killForeground) }
        return MemoryKillReport(
            level: memoryTracker.level, figures: figures, band: chosen.band, footprint: chosen.footprint,
            others: others.filter { $0.app != chosen.app }.map { candidate in
                MemoryKillReport.PassedOver(
                    app: candidate.app, band: candidate.band, footprint: candidate.footprint,
                    reason: VictimRanking.whyNotChosen(candidate, victim: chosen, killForeground: killForeground))
            })
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
