/// Room before a launch (rule 9): an app whose expected size does not fit in what memory and
/// swap can give is given that room before it is spawned: by compressing suspended apps where
/// swap can take what memory alone lacks, then by the killer's order for what swap cannot.
extension Lifecycle {
    /// Before the app at `index` is spawned: when its expected size
    /// (`LaunchMemoryHistory.expected`) is more than the room the last memory sample left in RAM
    /// alone (available memory above `warning_enter`, plus what victims still dying give back),
    /// makes that room first.
    ///
    /// What swap could still take (`SwapFigures.headroom`) is asked of compression: suspended
    /// apps that still hold memory in RAM and that suspension compresses
    /// (`compressesWhenSuspended`) are compressed in rule 9's order (never a protected app)
    /// until what compressing them frees covers what RAM lacks. Only what swap cannot give (the
    /// expected size beyond the room with swap counted, as the level weighs it) is left to
    /// kills, as without swap, and only as much of it as would leave the device under
    /// `critical_enter`, where the killer would take an app anyway: a launch that would leave
    /// the device at warning costs no app (rule 9 kills only under critical pressure). Apps are
    /// killed in rule 9's order (never a foreground or protected app, nor the app itself, which
    /// is not running) until what their kills give back covers that, or no app may be killed;
    /// when the first app's kill alone would fall short of what is still lacking, the first app
    /// of its band whose kill alone covers it goes instead (`launchVictim`; not inside the
    /// suspended band under `kill_order = "least_missed"`). With
    /// swap counted, a kill gives back its memory in RAM at once (`AppRecord.reclaimable`)
    /// and the swap space it frees, which swapping others' memory out fills
    /// (`SwapFigures.afterKill`): an app all in a zram gives back its compressed size at once and,
    /// at the zram's ratio, room for as much again once others are swapped out into its place.
    /// The kills come before the compressions (a victim's death frees its swap too), and both
    /// before the spawn; the journal says both on the launching app. An app never measured, a
    /// device not measured (levels reported, not sampled) and `[memory] make_room = false` make
    /// no room.
    mutating func makeRoomForLaunch(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard policy.memory.makeRoom, let expected = records[index].memoryHistory?.expected,
            let available = lastEffectiveAvailable, let total = deviceMemory
        else { return }
        let floor = memoryTracker.settings.warningEnter.bytes(ofTotal: total)
        let killFloor = memoryTracker.settings.criticalEnter.bytes(ofTotal: total)
        dyingVictims.removeAll { now - $0.killedAt >= memoryTracker.settings.victimExitWait }
        let coming = roomFromDyingVictims(swap: lastSwap)
        let room = max(0, available + coming.inRAM + coming.bySwapping - floor)
        // What the launch may take before the device would be critical: kills are for more.
        let killsFor = expected - max(0, available + coming.inRAM + coming.bySwapping - killFloor)
        let roomInRAM = max(0, available - lastSwapHeadroom + coming.inRAM - floor)
        let headroom = max(0, lastSwapHeadroom + coming.bySwapping)
        guard expected > roomInRAM else { return }
        let name = records[index].name
        let order = policy.memory.killOrder
        weighMisses(at: now)
        // Kills for what would leave the device critical even with swap; then compressions for
        // what memory alone still lacks above warning_enter. A kill gives back its memory in RAM
        // at once, and the swap space it frees is room that swapping out others' memory takes.
        var freed: Int64 = 0
        var freedBySwapping: Int64 = 0
        var swap = coming.swap
        var victims: [String] = []
        var ranked =
            killsFor > 0
            ? withKillableRecords { records in
                VictimRanking.firstIndices(records.count, among: records, killForeground: false, order: order)
            } : []
        while freed + freedBySwapping < killsFor {
            // As the killer's own candidates: only apps running and not being terminated stay.
            ranked.removeAll { records[$0].state == .notRunning || records[$0].terminating != nil }
            guard !ranked.isEmpty else { break }
            let lacking = killsFor - freed - freedBySwapping
            let pick = launchVictim(in: ranked, lacking: lacking, swap: swap, order: order, at: now)
            let victim = ranked.remove(at: pick.position)
            let dying = pick.kill.dying
            swap = pick.kill.swapAfter
            freed += dying.bytes
            freedBySwapping += pick.kill.bySwapping
            let swapPart = pick.kill.bySwapping > 0 ? ", and \(DurationFormat.sizeString(dying.swapped)) of swap" : ""
            victims.append("\"\(records[victim].name)\" (\(DurationFormat.sizeString(dying.bytes))\(swapPart))")
            dyingVictims.append(dying)
            // The apps of the band passed over for one whose kill alone covers the launch.
            var reasons: [Int: String] = [:]
            for (index, room) in pick.passedOver {
                reasons[index] =
                    "its kill alone (\(DurationFormat.sizeString(room))) would not cover the \(DurationFormat.sizeString(lacking)) the launch of \"\(name)\" still lacks, where that of \"\(records[victim].name)\" does: one kill rather than two"
            }
            let why =
                pick.passedOver.first.map { first, room in
                    "the first in the memory killer's order whose kill alone covers the \(DurationFormat.sizeString(lacking)) the launch still lacks, where \"\(records[first].name)\"'s kill (\(DurationFormat.sizeString(room))) would need another kill beside it"
                } ?? "the first in the memory killer's order"
            decide(
                victim,
                "Chosen to make room for the launch of \"\(name)\" (\(DurationFormat.sizeString(expected)) expected): \(why).",
                at: now, &out)
            let report = killReport(victim, figures: nil, passedOver: reasons)
            out.append(.journal(JournalRecord(app: records[victim].name, time: now, kind: .memoryKill(report))))
            terminate(victim, reason: .memoryPressure, because: "killed to make room for a launch", at: now, &out)
        }
        let swapTakes = max(0, headroom + freedBySwapping)
        let lacking = min(expected - roomInRAM - freed, swapTakes)
        let compression = compressForLaunch(
            of: name, expected: expected, lacking: lacking, swapTakes: swapTakes, at: now, &out)
        guard expected > room || !compression.apps.isEmpty else { return }
        // The launch takes its room: a wake or launch decided before the next sample counts it
        // gone, and what was asked of swap taken.
        lastEffectiveAvailable = available - expected
        lastSwapHeadroom -= compression.freed
        var parts: [String] = []
        if lacking > 0 {
            parts.append(
                compression.apps.isEmpty
                    ? "no suspended app could be compressed"
                    : "compressed \(compression.apps.joined(separator: ", ")), freeing \(DurationFormat.sizeString(compression.freed))"
                        + (compression.freed < lacking ? ", all that could be compressed" : ""))
        }
        if expected > room {
            let aboveCritical =
                "the launch leaves the device above critical_enter (\(DurationFormat.sizeString(killFloor)))"
            if killsFor <= 0 {
                parts.append("no app killed: \(aboveCritical)")
            } else if victims.isEmpty {
                parts.append("no app may be killed, so it is launched without it")
            } else {
                parts.append(
                    "killed \(victims.joined(separator: ", ")), giving back \(DurationFormat.sizeString(freed))"
                        + Self.onceSwappedOut(freedBySwapping)
                        + (freed + freedBySwapping < killsFor
                            ? ", all that could be killed"
                            : freed + freedBySwapping < expected - room ? "; \(aboveCritical)" : ""))
            }
        }
        // How far the device was from warning_enter, above it or under it.
        let margin = available + coming.inRAM + coming.bySwapping - floor
        let floorText = "warning_enter (\(DurationFormat.sizeString(floor)))"
        let roomText =
            margin < 0
            ? "\(DurationFormat.sizeString(-margin)) short of \(floorText)"
                + (headroom > 0 ? " even with what swap can take" : "")
            : "\(DurationFormat.sizeString(room)) free above \(floorText)"
                + (room > roomInRAM
                    ? ", \(DurationFormat.sizeString(room - roomInRAM)) of it only once swapped out" : "")
        decide(
            index,
            "\(Self.madeRoomPrefix)\(name): \(DurationFormat.sizeString(expected)) expected, \(roomText); \(parts.joined(separator: "; ")).",
            at: now, &out)
    }

    /// What the kill of one app gives a launch.
    struct LaunchKill {
        /// The victim, whose memory in RAM comes back at once (`DyingVictim.bytes`).
        var dying: DyingVictim
        /// What the swap space it frees adds to what swapping could still free.
        var bySwapping: Int64
        /// The swap figures once it is gone; nil where the device has none measured.
        var swapAfter: SwapFigures?

        /// All the room the kill makes: at once, and once others are swapped out.
        var room: Int64 { dying.bytes + bySwapping }
    }

    /// What the kill of the app at `index` gives a launch, with `swap` the figures before it.
    private func launchKill(_ index: Int, swap: SwapFigures?, at now: Instant) -> LaunchKill {
        let dying = dyingVictim(index, at: now)
        let after = swap?.afterKill(swapped: dying.swapped, resident: dying.resident)
        return LaunchKill(dying: dying, bySwapping: (after?.headroom ?? 0) - (swap?.headroom ?? 0), swapAfter: after)
    }

    /// Which of `ranked` (the killable apps' indices in rule 9's order) a launch still lacking
    /// `lacking` kills next: the first, unless its kill alone (with the swap space it frees)
    /// falls short and a later app of the same band covers it alone; then the first such app,
    /// one kill where the order would make two. Without swap the first app's kill gives back
    /// the most, so this happens only with swap: an app all in a zram gives back little at once
    /// and its place in the zram besides, so it may cover what a larger app in RAM does not.
    /// Not inside the suspended band under `kill_order = "least_missed"`, whose order weighs
    /// more than what a kill gives. `passedOver`: the apps ranked before the one chosen, with
    /// what the kill of each alone would give.
    private func launchVictim(
        in ranked: [Int], lacking: Int64, swap: SwapFigures?, order: KillOrder, at now: Instant
    ) -> (position: Int, kill: LaunchKill, passedOver: [(index: Int, room: Int64)]) {
        let first = launchKill(ranked[0], swap: swap, at: now)
        let band = records[ranked[0]].band
        guard first.room < lacking, order == .largest || band != .suspended else { return (0, first, []) }
        var passedOver = [(index: ranked[0], room: first.room)]
        for position in ranked.indices.dropFirst() {
            guard records[ranked[position]].band == band else { break }
            let kill = launchKill(ranked[position], swap: swap, at: now)
            guard kill.room >= lacking else {
                passedOver.append((ranked[position], kill.room))
                continue
            }
            return (position, kill, passedOver)
        }
        return (0, first, [])
    }

    /// Asks for the compression of suspended apps in rule 9's order (never a protected app)
    /// until what compressing them frees covers `lacking`, for the launch of `name`: each
    /// compressed by suspension (`compressesWhenSuspended`), with memory still in RAM, and not
    /// already asked by another launch. What an app frees is its memory in RAM, less what a
    /// compressed copy takes in a zram (`SwapFigures.freed`), and all together no more than
    /// `swapTakes`. Returns the apps as the journal names them and what compressing them frees.
    private mutating func compressForLaunch(
        of name: String, expected: Int64, lacking: Int64, swapTakes: Int64, at now: Instant,
        _ out: inout [LifecycleAction]
    ) -> (apps: [String], freed: Int64) {
        guard lacking > 0 else { return ([], 0) }
        let order = policy.memory.killOrder
        let count = records.count
        let ranked = withKillableRecords { records in
            VictimRanking.firstIndices(count, among: records, killForeground: false, order: order)
        }
        var apps: [String] = []
        var freed: Int64 = 0
        for candidate in ranked where freed < lacking {
            guard records[candidate].state == .suspended, !records[candidate].compressionAskedForRoom,
                compressesWhenSuspended(candidate)
            else { continue }
            let inRAM = records[candidate].footprint - records[candidate].swappedBytes
            let frees = min(
                SwapFigures.freed(byMoving: inRAM, compressionRatio: lastSwap?.compressionRatio), swapTakes - freed)
            guard frees > 0 else { continue }
            freed += frees
            records[candidate].compressionAskedForRoom = true
            apps.append("\"\(records[candidate].name)\" (\(DurationFormat.sizeString(inRAM)) in RAM)")
            decide(
                candidate,
                "Compressed to make room for the launch of \"\(name)\" (\(DurationFormat.sizeString(expected)) expected): the first in the memory killer's order with memory in RAM, \(DurationFormat.sizeString(inRAM)) of it.",
                at: now, &out)
            out.append(.compress(app: records[candidate].name, launch: records[candidate].launch))
        }
        return (apps, freed)
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
