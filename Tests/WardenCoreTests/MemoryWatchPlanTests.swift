import Testing
import WardenCore

@Suite("Memory watch plan")
struct MemoryWatchPlanTests {
    static func at(_ milliseconds: Int64) -> Instant {
        Instant(sinceOrigin: .milliseconds(milliseconds))
    }

    /// The steps of one wake-up at `milliseconds`, the device quiet or not throughout.
    static func round(_ plan: inout MemoryWatchPlan, at milliseconds: Int64, quiet: Bool = false)
        -> [MemoryWatchPlan.Step]
    {
        plan.beginRound(at: at(milliseconds))
        var steps: [MemoryWatchPlan.Step] = []
        while let step = plan.nextStep(quiet: quiet) { steps.append(step) }
        return steps
    }

    /// Takes a measurement at `milliseconds` that plans the next one `wait` later (a device of 8
    /// GiB with `available` free, the default thresholds).
    static func measure(_ plan: inout MemoryWatchPlan, at milliseconds: Int64, available: Int64 = 6 << 30) {
        plan.measurementBegins(quiet: false)
        plan.measured(available: available, at: at(milliseconds))
        plan.planNext(
            available: available, total: 8 << 30, level: .normal, settings: MemorySettings(),
            measuredAt: at(milliseconds), now: at(milliseconds))
    }

    /// At start the watch measures at once; the first sweep and the first check of the
    /// suspended apps come one sweep interval and 30 of them later.
    @Test func startMeasuresAtOnceAndSweepsAnIntervalLater() {
        var plan = MemoryWatchPlan()
        plan.start(at: Self.at(0))
        #expect(plan.due == Self.at(0))
        #expect(Self.round(&plan, at: 0) == [.measure])
        Self.measure(&plan, at: 0)
        #expect(plan.nextSweep == Self.at(1000))
        #expect(plan.nextSuspendedCheck == Self.at(30_000))
        #expect(plan.due == Self.at(1000))
    }

    /// A sweep due brings forward a measurement due within half an interval, and the two share
    /// one wake-up; every second sweep checks the freezer; the sweeps keep their grid.
    @Test func aSweepBringsTheMeasurementForward() {
        var plan = MemoryWatchPlan()
        plan.start(at: Self.at(0))
        _ = Self.round(&plan, at: 0)
        Self.measure(&plan, at: 0)
        // 6 GiB free: the next measurement is a second away, at the ceiling; move it to 1.4 s.
        plan.measurementBegins(quiet: false)
        plan.planNext(
            available: 6 << 30, total: 8 << 30, level: .normal, settings: MemorySettings(), measuredAt: Self.at(400),
            now: Self.at(400))
        #expect(plan.nextMeasurement == Self.at(1400))
        #expect(Self.round(&plan, at: 1000) == [.measure, .sweep(checkingFreezer: false)])
        #expect(plan.nextSweep == Self.at(2000))
        Self.measure(&plan, at: 1000)
        #expect(Self.round(&plan, at: 2000) == [.measure, .sweep(checkingFreezer: true)])
        #expect(plan.sweeps == 2)
    }

    /// A measurement due brings forward a sweep due within half an interval, which then keeps
    /// its grid.
    @Test func aMeasurementBringsTheSweepForward() {
        var plan = MemoryWatchPlan(sampleInterval: .seconds(2))
        plan.start(at: Self.at(0))
        _ = Self.round(&plan, at: 0)
        Self.measure(&plan, at: 0)
        #expect(plan.nextMeasurement == Self.at(1000))
        #expect(plan.nextSweep == Self.at(2000))
        #expect(Self.round(&plan, at: 1000) == [.measure, .sweep(checkingFreezer: false)])
        #expect(plan.nextSweep == Self.at(4000))
        Self.measure(&plan, at: 1000)
        #expect(Self.round(&plan, at: 1100).isEmpty)
    }

    /// A quiet device is not swept; after 5 s of quiet with no event but measurements the
    /// daemon trims, once per quiet spell; an event starts the spell again.
    @Test func aQuietDeviceTrimsOncePerSpell() {
        var plan = MemoryWatchPlan()
        plan.start(at: Self.at(0))
        #expect(Self.round(&plan, at: 0, quiet: true) == [.measure])
        plan.measurementBegins(quiet: true)
        #expect(plan.due == Self.at(0))
        #expect(Self.round(&plan, at: 4000, quiet: true) == [.measure])
        #expect(Self.round(&plan, at: 5000, quiet: true) == [.measure, .trim])
        #expect(Self.round(&plan, at: 6000, quiet: true) == [.measure])
        plan.eventHandled(at: Self.at(6500), quiet: true)
        #expect(Self.round(&plan, at: 11_000, quiet: true) == [.measure])
        #expect(Self.round(&plan, at: 11_500, quiet: true) == [.measure, .trim])
    }

    /// An event that ends a quiet spell (an app opened) brings the next measurement to now, and
    /// the sweeps count again in `due`.
    @Test func anEventThatEndsTheQuietMeasuresAtOnce() {
        var plan = MemoryWatchPlan()
        plan.start(at: Self.at(0))
        _ = Self.round(&plan, at: 0, quiet: true)
        plan.measurementBegins(quiet: true)
        plan.planNext(
            available: 6 << 30, total: 8 << 30, level: .normal, settings: MemorySettings(), measuredAt: Self.at(0),
            now: Self.at(0))
        #expect(plan.nextMeasurement == Self.at(5000))
        #expect(plan.due == Self.at(5000))
        plan.eventHandled(at: Self.at(300), quiet: true)
        #expect(plan.nextMeasurement == Self.at(5000))
        plan.eventHandled(at: Self.at(300), quiet: false)
        #expect(plan.nextMeasurement == Self.at(300))
        #expect(!plan.quiet)
        #expect(plan.due == Self.at(300))
    }

    /// A device that cannot be measured plans no measurement; the suspended apps are still
    /// looked at every 30 intervals.
    @Test func anUnmeasuredDeviceStillChecksTheSuspendedApps() {
        var plan = MemoryWatchPlan(sampleInterval: .milliseconds(100), suspendedCheckSweeps: 3)
        plan.start(at: Self.at(0))
        #expect(Self.round(&plan, at: 0, quiet: true) == [.measure])
        plan.measurementBegins(quiet: true)
        plan.deviceNotMeasured()
        #expect(plan.due == Self.at(300))
        #expect(Self.round(&plan, at: 300, quiet: true) == [.checkSuspended(checkingFreezer: true)])
        #expect(plan.nextSuspendedCheck == Self.at(600))
    }

    /// Where the kernel gives notice of groups frozen and thawed, no sweep reads the freezer and
    /// the suspended apps' check keeps only its footprints; without it, every second sweep and
    /// every check read it.
    @Test func noticesOfTheFreezerTakeTheFreezerOutOfEverySweepAndCheck() {
        func steps(notice: Bool) -> [MemoryWatchPlan.Step] {
            var plan = MemoryWatchPlan(
                sampleInterval: .milliseconds(100), freezerCheckSweeps: 2, suspendedCheckSweeps: 2)
            plan.freezerGivesNotice = notice
            plan.start(at: Self.at(0))
            var steps: [MemoryWatchPlan.Step] = []
            for milliseconds in stride(from: Int64(100), through: 200, by: 100) {
                steps += Self.round(&plan, at: milliseconds).filter { $0 != .measure }
            }
            return steps
        }
        #expect(
            steps(notice: false) == [
                .sweep(checkingFreezer: false), .sweep(checkingFreezer: true), .checkSuspended(checkingFreezer: true),
            ])
        #expect(
            steps(notice: true) == [
                .sweep(checkingFreezer: false), .sweep(checkingFreezer: false),
                .checkSuspended(checkingFreezer: false),
            ])
    }

    /// Only a kill for memory makes the watch measure again at once.
    @Test func onlyAKillForMemoryMeasuresAgain() {
        #expect(
            MemoryWatchPlan.measuresAgain(after: [.thaw(app: "mail"), .kill(app: "maps", reason: .memoryPressure)]))
        #expect(!MemoryWatchPlan.measuresAgain(after: [.kill(app: "maps", reason: .userForceQuit)]))
        #expect(!MemoryWatchPlan.measuresAgain(after: []))
    }
}
