/// Every input of the core: a user verb, an app call, a timer firing or a fact the runtime
/// observed. Each is handed to `Lifecycle.handle(_:at:)` (by the daemon to `Lifecycle.take(_:at:)`)
/// together with the time it happened.
public enum LifecycleEvent: Sendable, Equatable {
    // MARK: Operator verbs (§1.1)
    case open(app: String)
    case home
    case overlay
    case overlayEnd
    case lock
    case unlock
    case forceQuit(app: String)
    case reset(app: String)
    /// A push to an app by name or by device token. `payload` is the JSON text exactly as
    /// received; `id` is the notification id (the payload's top-level `"id"`, or one given
    /// with the request), used to deliver each notification once.
    case push(target: PushTarget, payload: String, id: String?)
    /// A device was added, removed or changed (`action`, udev's `ACTION`), with its udev
    /// properties: every app whose `accessories` match them is woken (rule 14).
    case accessory(action: String, properties: [String: String])

    // MARK: App calls (§1.2)
    case ready(app: String)
    case beginTask(app: String, name: String)
    case endTask(app: String, taskID: Int)
    /// `begin-activity MODE` (rule 14): `mode` as the app named it; the core refuses a name
    /// that is not a continuous mode.
    case beginActivity(app: String, mode: String)
    case endActivity(app: String, activityID: Int)
    case timeRemaining(app: String)
    case completeFetch(app: String, result: CompletionResult)
    case completePush(app: String, result: CompletionResult)
    case completeAccessory(app: String)
    case setFetchInterval(app: String, interval: FetchInterval)
    case registerPush(app: String)
    case acquire(app: String, resource: String)
    case release(app: String, resource: String)
    case reportStatus(app: String, status: AppStatus)

    // MARK: Timers and runtime facts
    /// A timer the core armed with `Action.armTimer` is due.
    case timerFired(TimerID)
    /// The process of launch number `launch` of `app` is running (the runtime spawned it). An
    /// app with `readiness = "immediate"` is ready now; a `notify` app stays awaiting its own
    /// `ready` call, with the launch watchdog running.
    case launched(app: String, launch: Int)
    /// The process of launch number `launch` of `app` ended.
    case processExited(app: String, launch: Int, end: ProcessEnd)
    /// A launch could not be carried out (the program is missing, the cgroup failed, …).
    case spawnFailed(app: String, launch: Int, message: String)
    /// The runtime did not freeze `app` because one of its processes holds `resource`
    /// through one of the resource's paths (rule 7); the app must be terminated instead.
    case heldAtSuspension(app: String, resource: String)
    /// A measurement of the memory charged to `app` (anon + shmem + swap), in bytes, and,
    /// where measured, how much of it is in swap now (what the kernel swapped out as well as what
    /// compression pushed out, or brought back since a thaw) and how much RAM that swapped part
    /// takes (its compressed size in a zram, 0 on a drive; nil: not known, counted whole). A kill
    /// gives back the part in RAM and what the swapped part takes of RAM (rule 9).
    case footprint(app: String, bytes: Int64, swapped: Int64? = nil, swappedInRAM: Int64? = nil)
    /// A pressure level reported directly (a PSI trigger, a kernel pressure event, a
    /// scenario's `pressure` step). `critical` kills exactly one victim.
    case pressure(PressureLevel)
    /// The memory of launch `launch` of `app` was pushed out to swap after it was frozen: how
    /// much of its footprint is now in swap, and how much RAM that takes (nil: not known).
    case compressed(app: String, launch: Int, swappedBytes: Int64, swappedInRAM: Int64? = nil)
    /// How long the processes of launch `launch` of `app` have waited on memory or for a CPU in
    /// total (PSI `some` of its group), answering `Action.measureStall`; nil where the host does
    /// not count it per group.
    case stallMeasured(app: String, launch: Int, total: Duration?)
    /// The CPU time launch `launch` of the app has used since it began, answering
    /// `Action.measureCPU`; nil where the host cannot tell (rule 13).
    case cpuMeasured(app: String, launch: Int, usage: Duration?)
    /// The kernel's OOM killer killed a process of launch `launch` of `app` while the app's
    /// main process still runs (a group the kernel does not kill whole): the app is terminated,
    /// `memoryLimit` when the kill was at its own limit, else `kernelOOMKill`.
    case oomKilled(app: String, launch: Int, kill: OOMKill)
    /// A memory sample: the core derives the level from the `[memory]` thresholds with
    /// enter/exit hysteresis and, while critical, kills one victim per sample. `swap`, where the
    /// device has swap: what swap can still take and the device's memory stall.
    case memorySample(available: Int64, total: Int64, swap: SwapFigures? = nil)
    /// The result of a watchdog scan the core asked for with `Action.scan`.
    case scanResult(app: String, outcome: ScanOutcome)
    /// The process, or its cgroup, was found frozen or thawed behind appwarden's back.
    case observedFrozen(app: String, frozen: Bool)
    /// A new policy replaces the current one (`policy reload`). `restartChanged`: running apps
    /// whose launch settings changed are terminated now (and reopened if in the foreground)
    /// rather than at their next launch. Answered with `Reply.policyChanged`.
    case policyChanged(Policy, restartChanged: Bool = false)
}

extension LifecycleEvent {
    /// The app the event is about; nil for the device's own events (home, the lock, the
    /// overlay, pressure, memory samples, a policy) and for a push addressed by token.
    public var app: String? {
        switch self {
        case .open(let app), .forceQuit(let app), .reset(let app), .ready(let app), .timeRemaining(let app),
            .registerPush(let app), .completeAccessory(let app):
            app
        case .beginTask(let app, _), .endTask(let app, _), .beginActivity(let app, _), .endActivity(let app, _),
            .completeFetch(let app, _), .completePush(let app, _),
            .setFetchInterval(let app, _), .acquire(let app, _), .release(let app, _), .reportStatus(let app, _),
            .launched(let app, _), .heldAtSuspension(let app, _), .footprint(let app, _, _, _), .scanResult(let app, _),
            .observedFrozen(let app, _):
            app
        case .processExited(let app, _, _), .spawnFailed(let app, _, _), .oomKilled(let app, _, _),
            .compressed(let app, _, _, _), .stallMeasured(let app, _, _), .cpuMeasured(let app, _, _):
            app
        case .push(let target, _, _):
            if case .app(let app) = target { app } else { nil }
        case .timerFired(let timer):
            timer.app
        case .home, .overlay, .overlayEnd, .lock, .unlock, .pressure, .memorySample, .policyChanged, .accessory:
            nil
        }
    }

    /// Whether the event only asks: the core answers it from its state and changes nothing
    /// (`time-remaining`). Such an event needs no checkpoint saved after it, unless the core
    /// did more with it (its first event starts it).
    public var isQuery: Bool {
        if case .timeRemaining = self { true } else { false }
    }

    /// Whether the event is a measurement: a footprint or a memory sample. The memory watch
    /// makes them every 10 ms near a threshold; the device's quiet spell goes on through them.
    public var isMeasurement: Bool {
        switch self {
        case .footprint, .memorySample: true
        default: false
        }
    }
}
