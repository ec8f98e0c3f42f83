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

    /// The candidate for the killer of the app at `index`.
    func killCandidate(_ index: Int) -> KillCandidate {
        KillCandidate(
            app: records[index].name, band: band(of: index), footprint: records[index].footprint,
            lastUsed: records[index].lastUsed, isProtected: records[index].isProtected)
    }

    /// Whether the app at `index` is a candidate for the killer: running and not already being terminated.
    func isKillCandidate(_ index: Int) -> Bool {
        records[index].state != .notRunning && records[index].terminating == nil
    }

    /// The candidates for the killer: every running app not already being terminated.
    func killCandidates() -> [KillCandidate] {
        var candidates: [KillCandidate] = []
        for index in records.indices where isKillCandidate(index) {
            candidates.append(killCandidate(index))
        }
        return candidates
    }

    /// The index of the first victim of rule 9, in one pass over the records without building
    /// candidates; the same choice as `VictimRanking.victim(among: killCandidates(), ...)`.
    func victimIndex() -> Int? {
        let killForeground = policy.memory.killForeground
        var best: Int?
        var bestBand = KillBand.foreground
        for index in records.indices where isKillCandidate(index) && !records[index].isProtected {
            let band = self.band(of: index)
            guard band != .foreground || killForeground else { continue }
            guard let current = best else {
                best = index
                bestBand = band
                continue
            }
            if VictimRanking.precedes(
                band: band, footprint: records[index].footprint, lastUsed: records[index].lastUsed,
                app: records[index].name, bandOf: bestBand, footprint: records[current].footprint,
                lastUsed: records[current].lastUsed, app: records[current].name)
            {
                best = index
                bestBand = band
            }
        }
        return best
    }

    /// Kills exactly one victim (rule 9), or journals that nobody may be killed.
    mutating func killOneVictim(at now: Instant, _ out: inout [LifecycleAction]) {
        guard let index = victimIndex() else {
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
