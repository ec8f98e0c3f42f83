/// Memory: footprints, pressure levels, warnings (rule 8) and the killer (rule 9).
extension Lifecycle {
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
        for index in records.indices {
            let record = records[index]
            guard record.isRunning, record.state != .suspended, record.terminating == nil else { continue }
            if let last = record.lastMemoryWarning, now - last < record.settings.memoryWarningInterval {
                continue
            }
            records[index].lastMemoryWarning = now
            out.append(.deliver(app: record.name, message: .memoryWarning))
        }
    }

    /// The candidates for the killer: every running app not already being terminated.
    func killCandidates() -> [KillCandidate] {
        var candidates: [KillCandidate] = []
        candidates.reserveCapacity(records.count)
        for record in records where record.isRunning && record.terminating == nil {
            candidates.append(
                KillCandidate(
                    app: record.name, band: record.band, footprint: record.footprint, lastUsed: record.lastUsed,
                    isProtected: record.isProtected))
        }
        return candidates
    }

    /// Kills exactly one victim (rule 9), or journals that nobody may be killed.
    mutating func killOneVictim(at now: Instant, _ out: inout [LifecycleAction]) {
        guard
            let victim = VictimRanking.victim(among: killCandidates(), killForeground: policy.memory.killForeground),
            let index = indexByName[victim.app]
        else {
            out.append(
                .journal(
                    JournalRecord(
                        app: Self.systemJournalName, time: now,
                        kind: .decision("Memory is critical but no app may be killed."))))
            return
        }
        decide(index, Self.victimSentence(victim.band), at: now, &out)
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
