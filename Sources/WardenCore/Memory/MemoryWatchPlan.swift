/// The memory watch's rules (rules 8 and 9): when to measure the device, when to sweep the
/// running apps, when to look at the suspended apps' groups, when the daemon gives back memory it
/// does not use, and when to measure again. A state machine the runtime drives: it tells the plan
/// what happened (a wake, a measurement, an event) and carries out the steps the plan returns;
/// the plan reads no clock and measures nothing.
///
/// While an app runs, the measurement and the sweep share one period (`sampleInterval` at most)
/// and one wake-up: whichever is due brings the other forward when that one is due within half a
/// sweep interval. A measurement then comes only earlier; a sweep keeps its grid, one per
/// interval. Between sweeps the measurements follow `MemoryPollingSchedule`. While the device is
/// quiet (nothing appwarden runs can grow) there are no sweeps, and once it has been quiet for
/// `idleBeforeTrim` with no event but measurements, the daemon trims its memory, once per quiet
/// spell. An event that ends a quiet spell (an app opened, thawed or launched) brings the next
/// measurement to now.
public struct MemoryWatchPlan: Sendable {
    /// What the watch does next.
    public enum Step: Sendable, Equatable {
        /// Measure the device's memory and hand the core the sample (`measurementBegins`, then
        /// `measured` and `planNext`).
        case measure
        /// Give back the memory the daemon does not use (once per quiet spell).
        case trim
        /// Sweep the running apps (their footprints); every `freezerCheckSweeps`th sweep also
        /// looks for running apps' groups frozen behind appwarden's back.
        case sweep(checkingFreezer: Bool)
        /// Look at the next round of the suspended apps' groups (their footprints, and their
        /// freezer state if `checkingFreezer`).
        case checkSuspended(checkingFreezer: Bool)
    }

    /// The longest time between sweeps of the running apps, and so between measurements while
    /// an app runs.
    public var sampleInterval: Duration
    /// One sweep in this many looks for running apps frozen behind appwarden's back.
    public var freezerCheckSweeps: Int
    /// The suspended apps' groups are looked at once per this many sweep intervals.
    public var suspendedCheckSweeps: Int
    /// How long the device stays quiet, with no event but measurements, before the daemon gives
    /// back the memory it does not use.
    public var idleBeforeTrim: Duration
    /// Whether the kernel tells the runtime each time an app's group is frozen or thawed
    /// (cgroup v2's `cgroup.events`): then no sweep and no check reads the freezer, and a group
    /// frozen or thawed behind appwarden's back is seen at once, not at the next look.
    public var freezerGivesNotice = false
    /// How soon to measure again after each measurement.
    public private(set) var schedule = MemoryPollingSchedule()
    /// When the next measurement is due; nil while the device's memory cannot be measured (then
    /// only signals and sweeps make the watch measure).
    public private(set) var nextMeasurement: Instant?
    /// When the next sweep of the running apps is due (none while the device is quiet).
    public private(set) var nextSweep: Instant?
    /// When the suspended apps' groups are next looked at.
    public private(set) var nextSuspendedCheck: Instant?
    /// How many sweeps have run.
    public private(set) var sweeps = 0
    /// Whether the device was quiet at the last measurement.
    public private(set) var quiet = false
    /// When the last event other than a measurement was handled.
    private var lastEvent = Instant.zero
    /// Whether the daemon trimmed its memory since that event.
    private var trimmed = false
    /// The round of steps under way (`beginRound`).
    private var round: Round?

    /// The steps of one wake-up, in their order, and what was decided so far.
    private struct Round {
        enum Stage { case measurement, trim, sweep, suspended }
        var now: Instant
        var stage = Stage.measurement
        var measured = false
    }

    /// Makes a plan: sweeps every second, one in two checking the freezer, the suspended apps
    /// looked at every 30 s, the trim after 5 s of quiet.
    public init(
        sampleInterval: Duration = .seconds(1), freezerCheckSweeps: Int = 2, suspendedCheckSweeps: Int = 30,
        idleBeforeTrim: Duration = .seconds(5)
    ) {
        self.sampleInterval = sampleInterval
        self.freezerCheckSweeps = max(1, freezerCheckSweeps)
        self.suspendedCheckSweeps = max(1, suspendedCheckSweeps)
        self.idleBeforeTrim = idleBeforeTrim
    }

    /// How often the suspended apps' groups are looked at.
    public var suspendedCheckInterval: Duration { sampleInterval * suspendedCheckSweeps }

    /// The watch starts at `now`: it measures at once; the sweeps of the running apps and the
    /// checks of the suspended ones start an interval from now.
    public mutating func start(at now: Instant) {
        nextMeasurement = now
        nextSweep = now + sampleInterval
        nextSuspendedCheck = now + suspendedCheckInterval
    }

    /// The earliest of the watch's deadlines: the next measurement, sweep (unless quiet) or
    /// check of the suspended apps.
    public var due: Instant? {
        [nextMeasurement, quiet ? nil : nextSweep, nextSuspendedCheck].compactMap { $0 }.min()
    }

    /// A wake-up at `now`: `nextStep` then gives what is due, one step at a time.
    public mutating func beginRound(at now: Instant) {
        round = Round(now: now)
    }

    /// The next step due in the round `beginRound` began, given whether the device is quiet now
    /// (a measurement may change it); nil once the round is done. A step returned counts as
    /// carried out: the plan moves its deadline on.
    public mutating func nextStep(quiet deviceIsQuiet: Bool) -> Step? {
        guard var round else { return nil }
        let now = round.now
        let soon = now + sampleInterval / 2
        while true {
            switch round.stage {
            case .measurement:
                round.stage = .trim
                let sweepDue = !deviceIsQuiet && nextSweep.map { $0 <= now } == true
                let measurementDue =
                    nextMeasurement.map { $0 <= now || (sweepDue && $0 <= soon) } == true
                round.measured = measurementDue
                if measurementDue {
                    self.round = round
                    return .measure
                }
            case .trim:
                round.stage = .sweep
                if deviceIsQuiet, !trimmed, now - lastEvent >= idleBeforeTrim {
                    trimmed = true
                    self.round = round
                    return .trim
                }
            case .sweep:
                round.stage = .suspended
                if !deviceIsQuiet, let next = nextSweep, next <= now || (round.measured && next <= soon) {
                    nextSweep = max(next + sampleInterval, now + .milliseconds(1))
                    sweeps &+= 1
                    self.round = round
                    return .sweep(checkingFreezer: !freezerGivesNotice && sweeps % freezerCheckSweeps == 0)
                }
            case .suspended:
                self.round = nil
                guard let next = nextSuspendedCheck, next <= now else { return nil }
                nextSuspendedCheck = max(next + suspendedCheckInterval, now + .milliseconds(1))
                return .checkSuspended(checkingFreezer: !freezerGivesNotice)
            }
        }
    }

    /// A measurement begins, with the device quiet or not.
    public mutating func measurementBegins(quiet: Bool) {
        self.quiet = quiet
    }

    /// The device's memory could not be measured: no measurement is planned until a signal or
    /// a sweep asks for one.
    public mutating func deviceNotMeasured() {
        nextMeasurement = nil
    }

    /// The device was measured at `time`: `available` is its effective available memory
    /// (`MemoryLevelTracker.effectiveAvailable`).
    public mutating func measured(available: Int64, at time: Instant) {
        schedule.record(available: available, at: time)
    }

    /// Plans the next measurement once the core has taken the sample measured at `time`: at the
    /// schedule's interval after `now`, a millisecond at least.
    ///
    /// - Parameters:
    ///   - available: The effective available memory measured.
    ///   - total: The device's memory.
    ///   - level: The core's level after the sample.
    ///   - settings: The policy's thresholds.
    ///   - time: When the measurement was made.
    ///   - now: When the sample was taken by the core.
    public mutating func planNext(
        available: Int64, total: Int64, level: PressureLevel, settings: MemorySettings, measuredAt time: Instant,
        now: Instant
    ) {
        let wait = schedule.interval(
            available: available, total: total, level: level, settings: settings, quiet: quiet, at: time)
        nextMeasurement = now + max(wait, .milliseconds(1))
    }

    /// An event other than a measurement was handled at `now`: the quiet spell starts again, and
    /// when the device stops being quiet (an app opened, thawed or launched) the watch, which
    /// may be waiting for seconds, measures at once and sweeps from then on.
    /// `deviceIsQuiet` is asked only after a quiet measurement (it reads every app).
    public mutating func eventHandled(at now: Instant, quiet deviceIsQuiet: @autoclosure () -> Bool) {
        lastEvent = now
        trimmed = false
        guard quiet, !deviceIsQuiet() else { return }
        quiet = false
        if nextMeasurement != nil { nextMeasurement = now }
    }

    /// Whether the watch measures again at once after carrying out `actions`: after a kill for
    /// memory (the driver waited for the group to empty), the running apps and the device are
    /// measured again, so that a sample still critical kills the next victim.
    public static func measuresAgain(after actions: [LifecycleAction]) -> Bool {
        actions.contains { if case .kill(_, .memoryPressure) = $0 { true } else { false } }
    }
}
