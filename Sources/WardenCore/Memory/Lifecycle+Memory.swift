/// Memory: footprints, pressure levels, warnings (rule 8) and the killer (rule 9).
extension Lifecycle {
    /// The size expected of the app's next launch, learned from its last launches
    /// (`LaunchMemoryHistory.expected`); nil for an unknown app or one never measured.
    public func expectedLaunchSize(of app: String) -> Int64? {
        indexByName[app].flatMap { records[$0].memoryHistory?.expected }
    }

    /// The memory level the last sample or report left (rules 8 and 9).
    public var memoryLevel: PressureLevel { memoryTracker.level }

    /// The level a memory sample of `available` bytes out of `total` would lead to, without
    /// taking it.
    public func memoryLevel(afterSampleOf available: Int64, total: Int64, swap: SwapFigures? = nil) -> PressureLevel {
        var tracker = memoryTracker
        return tracker.update(available: available, total: total, swap: swap)
    }

    /// The running apps (not the suspended ones: a frozen app cannot grow, and is measured when
    /// frozen) to measure before a memory sample of these figures, so that the killer ranks them
    /// on fresh figures: all of them when the sample makes or keeps the level critical, none
    /// otherwise. Their changed footprints come before the sample (`sampleEvents`).
    func appsToMeasure(beforeSampleOf available: Int64, total: Int64, swap: SwapFigures? = nil) -> [String] {
        guard memoryLevel(afterSampleOf: available, total: total, swap: swap) == .critical else { return [] }
        return runningApps(includingSuspended: false)
    }

    /// The footprints the killer ranks before `event` is handled, which the journal keeps for a
    /// replay of a kill (a victim is no candidate afterwards): for a memory sample that decides
    /// something and for a pressure report that is or leaves a level other than normal; none
    /// for other events (the watch samples every 10 ms near a threshold). `take(_:at:)` returns them.
    func killCandidates(before event: LifecycleEvent) -> [KillCandidate] {
        switch event {
        case .memorySample(let available, let total, let swap):
            sampleDecidesNothing(available: available, total: total, swap: swap) ? [] : killCandidates()
        case .pressure(let level):
            memoryLevel == .normal && level == .normal ? [] : killCandidates()
        default: []
        }
    }

    /// Whether a memory sample of these figures would decide nothing: the level normal before
    /// and after it, and the device's size unchanged (a new size resolves the apps' limits again).
    public func sampleDecidesNothing(available: Int64, total: Int64, swap: SwapFigures? = nil) -> Bool {
        memoryLevel == .normal && deviceMemory == total
            && memoryLevel(afterSampleOf: available, total: total, swap: swap) == .normal
    }

    /// Whether nothing the apps run can grow: every app suspended (frozen) or not running. The
    /// memory watch then polls slowly (`MemoryPollingSchedule`) and sweeps nothing but the
    /// periodic check of suspended apps.
    public var isQuiet: Bool {
        // Each state read in place: iterating the records would copy every one, and the daemon
        // asks this at every measurement, with a thousand apps.
        records.indices.allSatisfy { records[$0].state == .notRunning || records[$0].state == .suspended }
    }

    /// The amounts of available memory at which the level can change (`MemoryLevelTracker.boundaries`).
    public func memoryBoundaries(total: Int64) -> [Int64] {
        memoryTracker.boundaries(total: total)
    }

    /// `footprint`: the memory charged to the app, `swapped` of it in swap taking `swappedInRAM`
    /// of RAM. An app over the limit in force for its state is terminated (`memoryLimit`); one
    /// that crosses its `memory_high` is warned; the band (over its fair share or not), what a
    /// kill gives back and the OOM score follow the new figures.
    mutating func footprint(
        _ app: String, bytes: Int64, swapped: Int64? = nil, swappedInRAM: Int64? = nil, at now: Instant,
        _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try appIndex(app)
        guard bytes >= 0 else {
            throw LifecycleError(.invalid, "The footprint of app \"\(app)\" cannot be negative (\(bytes) bytes).")
        }
        if let swapped, swapped < 0 || swapped > bytes {
            throw LifecycleError(
                .invalid,
                "The swapped part of app \"\(app)\" must be between 0 and its footprint of \(bytes) bytes (\(swapped) bytes)."
            )
        }
        if let swappedInRAM, swappedInRAM < 0 || swappedInRAM > (swapped ?? bytes) {
            throw LifecycleError(
                .invalid,
                "What the swapped part of app \"\(app)\" takes of RAM must be between 0 and that part (\(swappedInRAM) bytes)."
            )
        }
        records[index].footprint = bytes
        guard records[index].isRunning else { return }
        // The launch's peak, for the size expected of the app's next launches.
        if records[index].memoryHistory == nil { records[index].memoryHistory = LaunchMemoryHistory() }
        records[index].memoryHistory?.observe(bytes)
        // What is in swap now: a wake of the app brings this back (rule 4), and status shows it.
        // A footprint that shrank below what was in swap takes it along. A swapped part whose RAM
        // is not said counts whole.
        let swappedNow = min(swapped ?? records[index].swappedBytes, bytes)
        let inRAM = swappedInRAM ?? (swapped == nil ? records[index].swappedInRAM : swappedNow)
        records[index].swappedBytes = swappedNow
        records[index].swappedInRAM = min(inRAM, swappedNow)
        guard records[index].terminating == nil else { return }
        if enforceLimit(index, at: now, &out) { return }
        let isAboveHigh = records[index].bounds.high.map { bytes > $0 } ?? false
        if isAboveHigh && !records[index].isAboveHigh && records[index].state != .suspended {
            decide(
                index,
                "Its footprint of \(DurationFormat.sizeString(bytes)) went over its memory_high of \(DurationFormat.sizeString(records[index].bounds.high ?? 0)): warned.",
                at: now, &out)
            warn(index, at: now, &out)
        }
        records[index].isAboveHigh = isAboveHigh
        updateScore(index, force: false, &out)
    }

    /// A level reported directly: warning or critical warns apps; critical kills one victim.
    mutating func pressure(_ level: PressureLevel, at now: Instant, _ out: inout [LifecycleAction]) {
        forgetRoomIfRecovered(at: now)
        let previous = memoryTracker.level
        memoryTracker.report(level)
        lastEffectiveAvailable = nil
        lastSwapHeadroom = 0
        lastSwap = nil
        journalLevelChange(from: previous, figures: nil, at: now, &out)
        react(to: level, figures: nil, at: now, &out)
        levelChanged(from: previous, available: nil, &out)
        markRoomLevel(at: now)
    }

    /// A memory sample: the level follows the thresholds with hysteresis; while critical, each
    /// sample kills one victim. A new device size resolves the apps' bounds again.
    mutating func memorySample(
        available: Int64, total: Int64, swap: SwapFigures?, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        forgetRoomIfRecovered(at: now)
        deviceHasSwap = (swap?.total ?? 0) > 0
        if deviceMemory != total {
            deviceMemory = total
            for index in records.indices {
                resolveMemoryBounds(index)
                updateGroupLimits(index, at: now, &out)
            }
        }
        // The thresholds this sample is compared with: those in force at the level before it.
        let figures = memoryTracker.figures(available: available, total: total, swap: swap)
        lastEffectiveAvailable = MemoryLevelTracker.effectiveAvailable(available, swap: swap)
        lastSwapHeadroom = swap?.headroom ?? 0
        lastSwap = swap
        let previous = memoryTracker.level
        let level = memoryTracker.update(available: available, total: total, swap: swap)
        journalLevelChange(from: previous, figures: figures, at: now, &out)
        react(to: level, figures: figures, swap: swap, at: now, &out)
        levelChanged(from: previous, available: available, &out)
        markRoomLevel(at: now)
    }

    /// The room the last kill made is kept while the device stays short, and for
    /// `RoomGivenBack.keptAfterNormal` once the level is back to normal: a kill whose room alone
    /// ends the shortage must not let the app that takes that room back pass for innocent at
    /// the next one. Before a sample is weighed: the room is forgotten when the level has been
    /// normal that long, whether or not a sample came meanwhile.
    private mutating func forgetRoomIfRecovered(at now: Instant) {
        if let since = roomGivenBack?.normalSince, now - since >= RoomGivenBack.keptAfterNormal {
            roomGivenBack = nil
        }
    }

    /// After a sample is weighed: when the level went back to normal, for `forgetRoomIfRecovered`.
    private mutating func markRoomLevel(at now: Instant) {
        guard roomGivenBack != nil else { return }
        if memoryTracker.level != .normal {
            roomGivenBack?.normalSince = nil
        } else if roomGivenBack?.normalSince == nil {
            roomGivenBack?.normalSince = now
        }
    }

    /// Runs the `on_pressure` hook when the level is no longer `previous`, after the kill the
    /// new level may have led to.
    private mutating func levelChanged(from previous: PressureLevel, available: Int64?, _ out: inout [LifecycleAction])
    {
        let level = memoryTracker.level
        guard level != previous else { return }
        if level != .critical { reportedNoVictim = false }
        guard let command = policy.hooks.onPressure else { return }
        out.append(
            .runHook(
                HookInvocation(
                    kind: .pressure, command: command, timeout: policy.hooks.timeout, level: level,
                    previousLevel: previous, available: available)))
    }

    private mutating func react(
        to level: PressureLevel, figures: MemoryFigures?, swap: SwapFigures? = nil, at now: Instant,
        _ out: inout [LifecycleAction]
    ) {
        guard level >= .warning else { return }
        warnApps(at: now, &out)
        if level == .critical {
            if let figures, waitsForDyingVictims(figures: figures, swap: swap, at: now, &out) { return }
            killOneVictim(figures: figures, at: now, &out)
        }
    }

    /// One victim at a time (rule 9), across samples: while a victim killed for memory has not
    /// been reported ended (for at most `[memory] victim_exit_wait`), its footprint is on its way back, and
    /// another app is killed only when the device would still be critical with it back. "Critical
    /// with it back" is weighed against `critical_enter`, as a level met afresh, not against the
    /// `critical_exit` that holds the level once critical: a device whose dying victims would
    /// bring it back between the two thresholds waits for them rather than lose another app. A
    /// victim slow to die (a large frozen app on a slow device) thus costs no second app that its
    /// own memory would have saved. Journaled once per victim.
    private mutating func waitsForDyingVictims(
        figures: MemoryFigures, swap: SwapFigures?, at now: Instant, _ out: inout [LifecycleAction]
    ) -> Bool {
        dyingVictims.removeAll { now - $0.killedAt >= memoryTracker.settings.victimExitWait }
        guard !dyingVictims.isEmpty else { return false }
        let coming = roomFromDyingVictims(swap: swap)
        var withVictimsGone = MemoryLevelTracker(settings: memoryTracker.settings)
        let level = withVictimsGone.update(
            available: figures.availableBytes + coming.inRAM, total: figures.totalBytes, swap: coming.swap)
        guard level != .critical else { return false }
        if dyingVictims.contains(where: { !$0.waitJournaled }) {
            for index in dyingVictims.indices { dyingVictims[index].waitJournaled = true }
            let names = dyingVictims.map { "\"\($0.app)\"" }.joined(separator: ", ")
            out.append(
                .journal(
                    JournalRecord(
                        app: Self.systemJournalName, time: now,
                        kind: .decision(
                            Self.victimWaitPrefix
                                + "\(DurationFormat.sizeString(coming.inRAM)) of app \(names), killed for it, is still on its way back\(Self.onceSwappedOut(coming.bySwapping)): no other app is killed unless the device stays critical without it."
                        ))))
        }
        return true
    }

    /// How the journal says what swap space a kill frees adds to what swapping could free, after
    /// what the kill gives back at once: ", and 99MiB more once swapped out into the swap
    /// freed"; nothing where it adds nothing.
    static func onceSwappedOut(_ bytes: Int64) -> String {
        bytes > 0 ? ", and \(DurationFormat.sizeString(bytes)) more once swapped out into the swap freed" : ""
    }

    /// How the journaled wait for a dying victim begins (`waitsForDyingVictim(_:)`).
    static let victimWaitPrefix = "Memory is critical, but "

    /// Whether `actions`, the core's answer to a memory sample, held off a kill to wait for the
    /// memory of a victim still dying; a replay, whose victims die at once, would not wait.
    public static func waitsForDyingVictim(_ actions: [LifecycleAction]) -> Bool {
        actions.contains { action in
            guard case .journal(let record) = action, record.app == systemJournalName,
                case .decision(let text) = record.kind
            else { return false }
            return text.hasPrefix(victimWaitPrefix)
        }
    }

    /// The app at `index`, killed for memory at `now`, as a victim whose memory is on its way.
    func dyingVictim(_ index: Int, at now: Instant) -> DyingVictim {
        let record = records[index]
        let swapped = min(max(0, record.swappedBytes), record.footprint)
        return DyingVictim(
            app: record.name, launch: record.launch, bytes: record.reclaimable, swapped: swapped,
            resident: record.footprint - swapped, killedAt: now)
    }

    /// What the victims still dying give back: their memory in RAM (`inRAM`), the swap figures
    /// once they are gone (`swap`, from the sample's), and what the swap space they free adds to
    /// what swapping could still free (`bySwapping`; less than nothing where their memory in RAM
    /// was all that swapping could have moved).
    func roomFromDyingVictims(swap: SwapFigures?) -> (inRAM: Int64, bySwapping: Int64, swap: SwapFigures?) {
        var inRAM: Int64 = 0
        var after = swap
        for victim in dyingVictims {
            inRAM += victim.bytes
            after = after?.afterKill(swapped: victim.swapped, resident: victim.resident)
        }
        return (inRAM, (after?.headroom ?? 0) - (swap?.headroom ?? 0), after)
    }

    /// The victim of launch `launch` of `app` ended: its memory is no longer on its way.
    mutating func victimEnded(_ app: String, launch: Int) {
        guard !dyingVictims.isEmpty else { return }
        dyingVictims.removeAll { $0.app == app && $0.launch == launch }
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
            warn(index, at: now, &out)
        }
    }

    /// Delivers a memory warning to one app unless it was warned within its `warning_interval`.
    private mutating func warn(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        if let last = records[index].lastMemoryWarning, now - last < records[index].settings.memoryWarningInterval {
            return
        }
        records[index].lastMemoryWarning = now
        out.append(.deliver(app: records[index].name, message: .memoryWarning))
    }

    // MARK: Per-app limits

    /// Resolves the app's memory bounds from its policy entry, the global `[memory]` settings and
    /// the device's memory as last measured.
    mutating func resolveMemoryBounds(_ index: Int) {
        records[index].bounds = MemoryBounds(
            app: appPolicies[index], global: policy.memory, deviceTotal: deviceMemory)
    }

    /// The limits of the app's group for its state now: the limit in force (`memory_max`, or
    /// the foreground or background limit if lower) and `memory_high`.
    func groupLimits(of index: Int, inForeground: Bool) -> GroupMemoryLimits {
        GroupMemoryLimits(
            max: records[index].bounds.limit(inForeground: inForeground)?.bytes, high: records[index].bounds.high)
    }

    /// Hands the runtime the limits of a running app's group when they changed (the app entered
    /// or left the foreground, the policy or the device's memory changed); an app already above
    /// its new limit is terminated instead (`memoryLimit`), as jetsam does.
    mutating func updateGroupLimits(
        _ index: Int, enforcing: Bool = true, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard records[index].isRunning, records[index].terminating == nil else { return }
        if enforcing && enforceLimit(index, at: now, &out) { return }
        let limits = groupLimits(of: index, inForeground: records[index].isInForeground)
        guard records[index].groupLimits != limits, !(records[index].groupLimits == nil && limits.isEmpty) else {
            return
        }
        records[index].groupLimits = limits
        out.append(.setMemoryLimits(app: records[index].name, limits: limits))
    }

    /// Terminates a running app whose footprint is above the limit in force for its state
    /// (`memoryLimit`); returns whether it did.
    private mutating func enforceLimit(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) -> Bool {
        let footprint = records[index].footprint
        guard let limit = records[index].bounds.limit(inForeground: records[index].isInForeground),
            footprint > limit.bytes
        else { return false }
        decide(
            index,
            "Its footprint of \(DurationFormat.sizeString(footprint)) is over its \(limit.setting) of \(DurationFormat.sizeString(limit.bytes)) while \(records[index].state.rawValue).",
            at: now, &out)
        records[index].memoryHistory?.forgetLaunchUnderWay()
        terminate(index, reason: .memoryLimit, because: "over its memory limit", at: now, &out)
        return true
    }

    /// The kernel's OOM killer killed a process in the app's group while the app still runs (a
    /// group that the kernel does not kill whole): the rest of the app goes too, with the reason
    /// the kill gives (`memoryLimit` at the app's own limit, else `kernelOOMKill`).
    mutating func oomKilled(_ app: String, launch: Int, kill: OOMKill, at now: Instant, _ out: inout [LifecycleAction])
    {
        guard let index = indexByName[app], records[index].launch == launch, records[index].isRunning,
            records[index].terminating == nil
        else { return }
        decide(index, kill.sentence, at: now, &out)
        if kill.isAtOwnLimit { records[index].memoryHistory?.forgetLaunchUnderWay() }
        terminate(index, reason: kill.reason, because: Self.oomSentence(kill), at: now, &out)
    }

    /// The state-change reason of an OOM kill.
    static func oomSentence(_ kill: OOMKill) -> String {
        kill.isAtOwnLimit ? "killed by the kernel at its memory limit" : "killed by the kernel's OOM killer"
    }

    // MARK: Compression

    /// Whether a suspended app's memory is pushed out to swap once frozen: where the device has
    /// swap, unless the app's or the global `compress_suspended` says no.
    func compressesWhenSuspended(_ index: Int) -> Bool {
        deviceHasSwap && (appPolicies[index].memory.compressSuspended ?? policy.memory.compressSuspended)
    }

    /// The runtime pushed a frozen app's memory out to swap: the footprint stays the same, and
    /// says how much of it is swapped; what a kill gives back shrinks to its part in RAM and what
    /// the swapped part takes of RAM (`swappedInRAM`; the whole swapped part when not said).
    mutating func compressed(
        _ app: String, launch: Int, swappedBytes: Int64, swappedInRAM: Int64? = nil, at now: Instant,
        _ out: inout [LifecycleAction]
    ) {
        guard let index = indexByName[app], records[index].launch == launch, records[index].isRunning else { return }
        // Never more than the footprint measured at the freeze.
        records[index].swappedBytes = min(max(0, swappedBytes), records[index].footprint)
        records[index].swappedInRAM = min(max(0, swappedInRAM ?? swappedBytes), records[index].swappedBytes)
        let when = records[index].compressionAskedForRoom ? "to make room for a launch" : "after suspension"
        records[index].compressionAskedForRoom = false
        updateScore(index, force: false, &out)
        decide(
            index,
            "Compressed \(when): \(DurationFormat.sizeString(max(0, swappedBytes))) of its memory in swap.",
            at: now, &out)
    }

    // MARK: The killer

    /// Runs `body` with the candidates for the killer: every running app not already being
    /// terminated, read in place from the records (`KillableRecords`); the indices are the
    /// records' own.
    func withKillableRecords<Result>(_ body: (KillableRecords) -> Result) -> Result {
        records.withUnsafeBufferPointer { body(KillableRecords(base: $0)) }
    }

    /// The candidates for the killer as `VictimRanking` lists them: `VictimRanking.rank` of
    /// them is the order in which critical pressure kills, one app per event, but for an app
    /// that grew into the room the last kill made, which goes first (`roomTaker`).
    public func killCandidates() -> [KillCandidate] {
        withKillableRecords { records in records.map(Self.candidate) }
    }

    private static func candidate(_ record: some KillRankable) -> KillCandidate {
        KillCandidate(
            app: record.app, band: record.band, footprint: record.footprint, swapped: record.swapped,
            reclaimable: record.reclaimable,
            lastUsed: record.lastUsed, isProtected: record.isProtected, isInForeground: record.isInForeground,
            openWeight: record.openWeight, relaunchSize: record.relaunchSize)
    }

    /// Under `kill_order = "least_missed"`, weighs at `now` what losing each suspended app would
    /// cost (`AppRecord.openWeight`, `relaunchSize`) for the ranking that follows: one pass over
    /// the records, in place, without allocating. Nothing under `largest`.
    mutating func weighMisses(at now: Instant) {
        guard policy.memory.killOrder == .leastMissed else { return }
        for index in records.indices where records[index].state == .suspended {
            records[index].openWeight = KillOrder.openWeight(of: records[index].userOpens, at: now)
            records[index].relaunchSize = records[index].memoryHistory?.expected ?? records[index].footprint
        }
    }

    /// Kills exactly one victim (rule 9), or journals, once while the level holds, that nobody
    /// may be killed. An app that grew into the room the last kill made goes first
    /// (`roomTaker`), then the bands' order. The victim's journal says why: the figures, its
    /// band, and every other candidate with the reason it was passed over. The kill's own room
    /// is then remembered, until the next kill or a normal level.
    mutating func killOneVictim(figures: MemoryFigures? = nil, at now: Instant, _ out: inout [LifecycleAction]) {
        let killForeground = policy.memory.killForeground
        let order = policy.memory.killOrder
        let taker = roomTaker(killForeground: killForeground)
        weighMisses(at: now)
        guard
            let index = taker
                ?? withKillableRecords({ records in
                    VictimRanking.victimIndex(among: records, killForeground: killForeground, order: order)
                })
        else {
            guard !reportedNoVictim else { return }
            reportedNoVictim = true
            out.append(
                .journal(
                    JournalRecord(
                        app: Self.systemJournalName, time: now,
                        kind: .decision("Memory is critical but no app may be killed."))))
            return
        }
        reportedNoVictim = false
        dyingVictims.append(dyingVictim(index, at: now))
        let tookRoom = taker.flatMap(tookRoom)
        decide(index, victimSentence(index, tookRoom: tookRoom), at: now, &out)
        out.append(
            .journal(
                JournalRecord(
                    app: records[index].name, time: now,
                    kind: .memoryKill(killReport(index, figures: figures, tookRoom: tookRoom)))))
        rememberRoom(madeBy: index)
        if taker != nil || records[index].band == .overFairShare {
            records[index].memoryHistory?.forgetLaunchUnderWay()
        }
        terminate(index, reason: .memoryPressure, because: "killed for memory pressure", at: now, &out)
    }

    /// The report of the kill of `records[victim]`: the others in kill order, then those that
    /// may not be killed, each with `VictimRanking.whyNotChosen`, up to `MemoryKillReport.listedLimit`.
    /// The records are ranked in place: only those listed are copied, so that with a thousand
    /// suspended apps the report costs the killer little more than its choice.
    /// When the victim took the room the last kill made (`tookRoom`), the others that may be
    /// killed are passed over for that (`whyNotChosen(_:forTheRoomTakenBy:_:)`); `passedOver`
    /// gives, by record index, the reason of apps passed over for another rule (room before a
    /// launch taking one kill rather than two).
    func killReport(
        _ victim: Int, figures: MemoryFigures?, tookRoom: MemoryKillReport.TookRoom? = nil,
        passedOver: [Int: String] = [:]
    ) -> MemoryKillReport {
        let killForeground = policy.memory.killForeground
        let order = policy.memory.killOrder
        let chosen = Self.candidate(records[victim])
        let limit = MemoryKillReport.listedLimit
        let (listed, killable) = withKillableRecords { records -> ([(index: Int, candidate: KillCandidate)], Int) in
            // The eligible in kill order, then those that may not be killed, in the records' order.
            var others = VictimRanking.firstIndices(
                limit + 1, among: records, killForeground: killForeground, order: order
            )
            .filter { $0 != victim }.prefix(limit).map { (index: $0, candidate: Self.candidate(records[$0])) }
            var killable = 0
            for index in records.indices {
                killable += 1
                guard others.count < limit, index != victim else { continue }
                let record = records[index]
                if !VictimRanking.isEligible(
                    isInForeground: record.isInForeground, isProtected: record.isProtected,
                    killForeground: killForeground)
                {
                    others.append((index, Self.candidate(record)))
                }
            }
            return (others, killable)
        }
        let others = listed.map { index, candidate in
            let reason =
                if let reason = passedOver[index] {
                    reason
                } else if let tookRoom, VictimRanking.isEligible(candidate, killForeground: killForeground) {
                    whyNotChosen(index, forTheRoomTakenBy: chosen.app, tookRoom)
                } else {
                    VictimRanking.whyNotChosen(
                        candidate, victim: chosen, killForeground: killForeground, order: order)
                }
            return MemoryKillReport.PassedOver(
                app: candidate.app, band: candidate.band, footprint: candidate.footprint,
                reclaimable: candidate.reclaimable, reason: reason)
        }
        return MemoryKillReport(
            level: memoryTracker.level, figures: figures, band: chosen.band, footprint: chosen.footprint,
            swapped: min(max(0, records[victim].swappedBytes), chosen.footprint), reclaimable: chosen.reclaimable,
            tookRoom: tookRoom, others: others, unlisted: max(0, killable - 1 - limit))
    }

    /// Why the killer chose the app at `index`, in words; `tookRoom` when it grew into the room
    /// the last kill made.
    private func victimSentence(_ index: Int, tookRoom: MemoryKillReport.TookRoom?) -> String {
        if let tookRoom {
            return
                "Chosen by the memory killer: it \(tookRoom.clause), and an app that takes the room of the last kill goes first."
        }
        switch band(of: index) {
        case .overFairShare:
            let share = records[index].bounds.fairShare ?? 0
            let setting = appPolicies[index].memory.fairShare ?? policy.memory.fairShare
            let of = deviceMemory.map { " of \(DurationFormat.sizeString($0))" } ?? ""
            return
                "Chosen by the memory killer: its footprint of \(DurationFormat.sizeString(records[index].footprint)) is over its fair share (\(setting.map(\.description) ?? "")\(of): \(DurationFormat.sizeString(share))), and an app over its fair share goes first."
        case .suspended:
            guard policy.memory.killOrder == .leastMissed else {
                return "Chosen by the memory killer: largest suspended app."
            }
            return
                "Chosen by the memory killer: the suspended app whose kill gives back the most for what losing it costs (kill_order = \"least_missed\"): \(VictimRanking.missTerms(Self.candidate(records[index])))."
        case .idleBackground: return "Chosen by the memory killer: largest idle background app."
        case .backgroundWindow: return "Chosen by the memory killer: largest app in a fetch or push window."
        case .backgroundTask: return "Chosen by the memory killer: largest app running background tasks."
        case .activity: return "Chosen by the memory killer: largest background app holding an activity."
        case .foreground: return "Chosen by the memory killer: largest foreground app, as a last resort."
        }
    }
}

/// An app killed for memory pressure whose process has not been reported ended yet.
struct DyingVictim: Sendable, Equatable {
    var app: String
    var launch: Int
    /// What its death gives back at once (`AppRecord.reclaimable` when it was killed).
    var bytes: Int64
    /// Its memory in swap when it was killed, which its death frees for others' memory.
    var swapped: Int64
    /// Its memory in RAM when it was killed.
    var resident: Int64
    var killedAt: Instant
    /// Whether a wait for it has been journaled.
    var waitJournaled = false
}
