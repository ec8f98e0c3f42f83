public import WardenAPI
public import WardenCore

extension JournalInput {
    /// The inputs to journal for `event`, which the core answered with `actions`: what a replay
    /// needs to make the core decide the same. `endsOnItsOwn` says whether a process end is the
    /// app's own (not one the core asked for with a termination or a kill); `candidates` are the
    /// footprints the memory killer would rank now, journaled before a memory sample or a pressure
    /// event that decided something.
    ///
    /// Timers, launches and answers to queries are left out: a replay plays them itself.
    public static func inputs(
        for event: LifecycleEvent, actions: [LifecycleAction], endsOnItsOwn: Bool,
        candidates: @autoclosure () -> [KillCandidate]
    ) -> [JournalInput] {
        switch event {
        case .memorySample, .pressure:
            guard decides(actions) else { return [] }
            let footprints = candidates().map { JournalInput.step(footprintStep(of: $0)) }
            let wait: [JournalInput] =
                Lifecycle.waitsForDyingVictim(actions)
                ? [
                    .unreplayable(
                        "the killer waited for the memory of a victim still dying, where a replay's victims die at once"
                    )
                ]
                : []
            return footprints + [.step(stepText(of: event))] + wait
        case .footprint:
            return decides(actions) ? [.step(stepText(of: event))] : []
        case .processExited(let app, _, let end):
            guard endsOnItsOwn else { return [] }
            switch end {
            case .exited: return [.step("\(app) exit")]
            case .crashed: return [.step("\(app) crash")]
            case .oomKilled(let kill): return [.unreplayable("\(app): \(kill.sentence)")]
            }
        case .oomKilled(let app, _, let kill):
            return [.unreplayable("\(app): \(kill.sentence)")]
        case .spawnFailed(let app, _, let message):
            return [.unreplayable("\(app) could not be launched: \(message)")]
        case .heldAtSuspension(let app, let resource):
            return [
                .unreplayable(
                    "\(app) held the shared resource \"\(resource)\" through one of its paths when it was to be suspended"
                )
            ]
        case .observedFrozen(let app, let frozen):
            return [.unreplayable("\(app) was found \(frozen ? "frozen" : "thawed") behind appwarden's back")]
        case .stallMeasured(let app, _, _):
            // A stall that lengthened a window is the app's own, which no step plays.
            let lengthened = actions.contains {
                if case .armTimer(let timer, _) = $0 { timer.app == app } else { false }
            }
            return lengthened ? [.unreplayable("\(app)'s window was lengthened by its own stall")] : []
        case .cpuMeasured(let app, _, _):
            // A replay plays CPU use only from `cpu` steps; a measurement that decided nothing needs none.
            let decided = actions.contains {
                switch $0 {
                case .deliver(_, .cpuWarning), .kill(_, .cpuLimit): true
                default: false
                }
            }
            return decided
                ? [
                    .unreplayable(
                        "\(app)'s CPU use in background was over its budget, which a replay plays only from cpu steps")
                ] : []
        case .timerFired(let timer):
            // A push held for memory is journaled when it is held (`.push` below), not at its tries.
            guard Lifecycle.wakeWaitedForMemory(actions) else { return [] }
            return [
                .unreplayable(
                    "\(timer.app)'s fetch waited for memory its wake would bring back, which a replay does not measure")
            ]
        case .push:
            let step = JournalInput.step(stepText(of: event))
            guard Lifecycle.wakeWaitedForMemory(actions) else { return [step] }
            return [
                step,
                .unreplayable("a push waited for memory its wake would bring back, which a replay does not measure"),
            ]
        case .accessory:
            let step = JournalInput.step(stepText(of: event))
            guard Lifecycle.wakeWaitedForMemory(actions) else { return [step] }
            return [
                step,
                .unreplayable(
                    "an accessory event was dropped for memory its wake would bring back, which a replay does not measure"
                ),
            ]
        case .launched, .compressed, .timeRemaining, .ready, .policyChanged:
            return []
        default:
            return [.step(stepText(of: event))]
        }
    }

    /// Whether the core's answer to a measurement decided something: a record in the journal
    /// (a level change, a kill, a decision), a termination or a memory warning.
    public static func decides(_ actions: [LifecycleAction]) -> Bool {
        actions.contains { action in
            switch action {
            case .journal, .kill, .terminate: true
            case .deliver(_, let message):
                if case .memoryWarning = message { true } else { false }
            default: false
            }
        }
    }

    /// How a scenario step writes `event`, without its time; sizes exactly, to the byte, and a
    /// memory sample with every swap figure.
    /// The footprint step that gives a replay `candidate`'s figures: its footprint and, when some
    /// of it is in swap, that part and the RAM it takes, so that the replay ranks it the same.
    public static func footprintStep(of candidate: KillCandidate) -> String {
        footprintStep(
            app: candidate.app, footprint: candidate.footprint, swapped: candidate.swapped,
            inRAM: candidate.reclaimable - (candidate.footprint - candidate.swapped))
    }

    /// The footprint step of an app with `footprint`, `swapped` of it in swap taking `inRAM` of
    /// RAM; the swapped part is left out when there is none.
    public static func footprintStep(app: String, footprint: Int64, swapped: Int64, inRAM: Int64) -> String {
        stepText(
            of: .footprint(
                app: app, bytes: footprint, swapped: swapped > 0 ? swapped : nil,
                swappedInRAM: swapped > 0 ? inRAM : nil))
    }

    public static func stepText(of event: LifecycleEvent) -> String {
        switch event {
        case .scanResult(let app, let outcome): "scan \(app) \(outcome.rawValue)"
        case .memorySample(_, _, let swap?): (event.stepText(size: exactSize) ?? "") + swapText(swap)
        default: event.stepText(size: exactSize) ?? "\(event)"
        }
    }

    /// ` swap FREE of TOTAL swappable SIZE [zram RATIO] [stall PERCENT%]`.
    static func swapText(_ swap: SwapFigures) -> String {
        var text =
            " swap \(exactSize(swap.free)) of \(exactSize(swap.total)) swappable \(exactSize(max(0, swap.swappable)))"
        if let ratio = swap.compressionRatio { text += " zram \(ratio)" }
        if let stall = swap.stallPercent { text += " stall \(stall)%" }
        return text
    }

    /// A size as a step writes it without rounding: `300MiB`, `12KiB`, `1234567B`.
    public static func exactSize(_ bytes: Int64) -> String {
        let bytes = max(0, bytes)
        if bytes > 0, bytes % (1 << 30) == 0 { return "\(bytes >> 30)GiB" }
        if bytes > 0, bytes % (1 << 20) == 0 { return "\(bytes >> 20)MiB" }
        if bytes > 0, bytes % (1 << 10) == 0 { return "\(bytes >> 10)KiB" }
        return "\(bytes)B"
    }
}
