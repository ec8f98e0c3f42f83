/// Rule 13: the CPU by state and the background CPU budget.
///
/// Each change of an app's CPU class hands the runtime what its group is given
/// (`LifecycleAction.setCPU`), before the spawn for a launch, so that no process of the app runs
/// in the wrong class. While the app is in background (not suspended) the core measures its CPU
/// time once per budget window (`LifecycleAction.measureCPU`, answered by
/// `LifecycleEvent.cpuMeasured`): a window above the budget warns the app, a second one in a row
/// terminates it (`cpuLimit`). The foreground is never held to the budget.
extension Lifecycle {
    /// The CPU settings of the app at `index` (its policy's, overrides applied).
    func cpuSettings(of index: Int) -> CPUSettings {
        appPolicies[index].cpu
    }

    /// The CPU class of the app at `index` now (rule 13; the activity class while it holds an
    /// activity in background, rule 14); nil when it does not run.
    func cpuClass(of index: Int) -> CPUClass? {
        CPUClass(state: records[index].state, holdsActivity: records[index].holdsActivity)
    }

    /// Hands the runtime the control for `cpuClass` of the app at `index`.
    mutating func setCPUClass(_ index: Int, _ cpuClass: CPUClass, _ out: inout [LifecycleAction]) {
        out.append(
            .setCPU(
                app: records[index].name, cpuClass: cpuClass, control: cpuSettings(of: index).control(for: cpuClass)))
    }

    /// The CPU side of a state change from `from` to the app's current state: a new class when
    /// it changed (a launch already set it before the spawn), and the budget's measurements
    /// started on entering background and stopped on leaving it.
    mutating func cpuStateChanged(_ index: Int, from: AppState, at now: Instant, _ out: inout [LifecycleAction]) {
        let to = records[index].state
        let holdsActivity = records[index].holdsActivity
        if from != .notRunning, let newClass = cpuClass(of: index),
            CPUClass(state: from, holdsActivity: holdsActivity) != newClass
        {
            setCPUClass(index, newClass, &out)
        }
        if to == .background && from != .background {
            startCPUBudget(index, at: now, &out)
        } else if to != .background && from == .background {
            stopCPUBudget(index, &out)
        }
    }

    /// Starts measuring the app's CPU time for the budget: a first measurement now (the
    /// window's start), the next when the window ends.
    mutating func startCPUBudget(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        records[index].cpuBaseline = nil
        records[index].cpuStrikes = 0
        guard let window = budgetWindow(of: index) else { return }
        out.append(.measureCPU(app: records[index].name, launch: records[index].launch))
        arm(index, .cpuBudget, at: now + window, &out)
    }

    /// Stops the budget's measurements: the app left background.
    mutating func stopCPUBudget(_ index: Int, _ out: inout [LifecycleAction]) {
        records[index].cpuBaseline = nil
        records[index].cpuStrikes = 0
        cancel(index, .cpuBudget, &out)
    }

    /// The budget window of the app at `index`; nil when its budget is off.
    func budgetWindow(of index: Int) -> Duration? {
        let settings = cpuSettings(of: index)
        guard settings.backgroundLimitPercent != nil, settings.backgroundLimitWindow > .zero else { return nil }
        return settings.backgroundLimitWindow
    }

    /// The budget window ended: measure the app's CPU time again.
    mutating func cpuBudgetFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].state == .background, records[index].terminating == nil else { return }
        out.append(.measureCPU(app: records[index].name, launch: records[index].launch))
    }

    /// The runtime measured the CPU time launch `launch` of `app` has used since it began
    /// (`usage`; nil where the host cannot tell). The first measurement of a background stay
    /// starts the window; each later one closes it and starts the next: a window above the
    /// budget warns the app, the second in a row terminates it (`cpuLimit`).
    mutating func cpuMeasured(
        _ app: String, launch: Int, usage: Duration?, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard let index = indexByName[app], records[index].launch == launch,
            records[index].state == .background, records[index].terminating == nil,
            let usage, let window = budgetWindow(of: index),
            let limit = cpuSettings(of: index).backgroundLimitPercent
        else { return }
        defer {
            if records[index].state == .background {
                records[index].cpuBaseline = CPUSample(time: now, usage: usage)
                if records[index].timers[.cpuBudget] == nil {
                    arm(index, .cpuBudget, at: now + window, &out)
                }
            }
        }
        guard let baseline = records[index].cpuBaseline, now > baseline.time else { return }
        let percent = CPUSample.percent(used: usage - baseline.usage, over: now - baseline.time)
        records[index].cpuPercent = percent
        guard percent > limit else {
            records[index].cpuStrikes = 0
            return
        }
        let figures =
            "\(percent)% of a CPU over \(DurationFormat.string(now - baseline.time)) in background, above its limit of \(limit)%"
        if records[index].cpuStrikes == 0 {
            records[index].cpuStrikes = 1
            decide(
                index, "Used \(figures); it is terminated if it goes on for another \(DurationFormat.string(window)).",
                at: now, &out)
            out.append(
                .deliver(
                    app: records[index].name,
                    message: .cpuWarning(percent: percent, limitPercent: limit, window: now - baseline.time)))
            return
        }
        records[index].cpuStrikes = 0
        decide(index, "Used \(figures), after a warning.", at: now, &out)
        terminate(index, reason: .cpuLimit, because: "over its background CPU limit", at: now, &out)
    }

    /// Hands the runtime the CPU control of every running app whose class settings changed in a
    /// reload from `old` to the app's current settings.
    mutating func cpuSettingsChanged(
        _ index: Int, from old: CPUSettings, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard records[index].isRunning, records[index].terminating == nil, let cpuClass = cpuClass(of: index)
        else { return }
        let new = cpuSettings(of: index)
        if old.control(for: cpuClass) != new.control(for: cpuClass) {
            setCPUClass(index, cpuClass, &out)
        }
        if records[index].state == .background && budgetWindow(of: index) == nil {
            stopCPUBudget(index, &out)
        } else if records[index].state == .background && records[index].timers[.cpuBudget] == nil {
            startCPUBudget(index, at: now, &out)
        }
    }

    /// The class and control of every running app, for a core restored from a checkpoint whose
    /// runtime re-adopted the apps' groups: what their groups are given follows the policy in force.
    mutating func restoreCPUClasses(at now: Instant, _ out: inout [LifecycleAction]) {
        for index in records.indices where records[index].inPolicy && records[index].isRunning {
            guard let cpuClass = cpuClass(of: index) else { continue }
            setCPUClass(index, cpuClass, &out)
            if records[index].state == .background && records[index].timers[.cpuBudget] == nil {
                startCPUBudget(index, at: now, &out)
            }
        }
    }
}

/// The CPU time an app had used at a moment, as the runtime measured it.
struct CPUSample: Sendable, Equatable {
    var time: Instant
    var usage: Duration

    /// `used` over `span` in percent of one CPU, rounded down; 0 for an empty span.
    static func percent(used: Duration, over span: Duration) -> Int {
        guard span > .zero, used > .zero else { return 0 }
        let usedMicros = used.components.seconds * 1_000_000 + used.components.attoseconds / 1_000_000_000_000
        let spanMicros = span.components.seconds * 1_000_000 + span.components.attoseconds / 1_000_000_000_000
        guard spanMicros > 0 else { return 0 }
        return Int(usedMicros * 100 / spanMicros)
    }
}
