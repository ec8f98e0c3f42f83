import Foundation
public import Logging
public import WardenCore
public import WardenRuntime

/// A daemon in virtual time: `WardenDaemon` on a `ManualClock`, a `VirtualAlarm`, a
/// `FakeCgroupDriver` (which is also its memory source and its memory signals), a
/// `FakeProcessLauncher` and an in-memory journal, with a way to let it finish what it is doing
/// (`settle`) and to move time on with every deadline handled at its own time (`advance`).
///
/// Nothing here polls or sleeps: whatever the test, the fake launcher or the fake driver does is
/// queued for the daemon at once, `settle` returns when the daemon's queue is empty, and
/// `advance` moves the clock to each deadline the daemon asked its alarm for, wakes it and
/// settles, in time order, as NIOEmbedded's `advanceTime(to:)` runs its scheduled tasks.
///
/// ```swift
/// let bed = await WardenTestBed.start(policy: policy)
/// defer { bed.removeStateDirectory() }
/// _ = try await bed.daemon.perform(.open(app: "mail"))
/// await bed.advance(by: .seconds(10))
/// await bed.stop()
/// ```
public struct WardenTestBed: Sendable {
    public let clock: ManualClock
    public let alarm: VirtualAlarm
    public let driver: FakeCgroupDriver
    public let launcher: FakeProcessLauncher
    public let journal: WardenMemoryJournal
    public let daemon: WardenDaemon
    /// A temporary directory for the apps' restoration directories and logs.
    public let stateDirectory: String

    /// The daemon's control API answers (`daemon.control`): its reads, `perform` and metrics.
    public var control: DaemonControl { daemon.control }

    /// Starts a daemon on `policy` at the manual clock's time zero.
    ///
    /// - Parameters:
    ///   - sampleInterval: How often the daemon sweeps the running apps; by default never within
    ///     a test, so that only the footprints and samples a test sends reach the core.
    ///   - configure: Changes the options before the daemon starts.
    ///   - tokenSource: Where device tokens come from; by default the simulator's deterministic
    ///     tokens, so that a replayed scenario's tokens are the ones it names.
    ///   - restarting: The journal and state directory of a stopped bed, for a daemon that
    ///     continues from its checkpoint; by default a new journal and directory.
    ///   - clock: The manual clock, and what the daemon reads as the wall and boot clocks
    ///     (`WardenClock.virtual`).
    ///   - devices: Where device events come from; by default none (scenario steps stand for them).
    public static func start(
        policy: Policy,
        sampleInterval: Duration = .seconds(1_000_000_000),
        configure: (inout WardenDaemonOptions) -> Void = { _ in },
        tokenSource: DeviceTokenSource = .deterministic,
        logger: Logger? = nil,
        restarting: (journal: WardenMemoryJournal, stateDirectory: String)? = nil,
        clock: (manual: ManualClock, wallNow: @Sendable () -> Int64, bootNow: @Sendable () -> WardenClock.BootTime?)? =
            nil,
        devices: (any DeviceEventSource)? = nil,
        prepare: (FakeCgroupDriver, FakeProcessLauncher) -> Void = { _, _ in }
    ) async -> WardenTestBed {
        let directory = restarting?.stateDirectory ?? NSTemporaryDirectory() + "appwarden-virtual-\(UUID().uuidString)"
        var options = WardenDaemonOptions(
            policyPath: directory + "/policy.toml", socketPath: directory + "/appwarden.sock",
            stateDirectory: directory, cgroupRoot: "appwarden-virtual", sampleInterval: sampleInterval)
        configure(&options)
        let manual = clock?.manual ?? ManualClock()
        let alarm = VirtualAlarm()
        let driver = FakeCgroupDriver()
        let launcher = FakeProcessLauncher(driver: driver)
        let journal = restarting?.journal ?? WardenMemoryJournal()
        prepare(driver, launcher)
        var quiet = Logger(label: "appwarden.virtual")
        quiet.logLevel = .critical
        let parts = DaemonParts(
            clock: clock.map { WardenClock.virtual($0.manual, wallNow: $0.wallNow, bootNow: $0.bootNow) }
                ?? WardenClock.virtual(manual), alarm: alarm, journal: journal, driver: driver, launcher: launcher,
            memory: driver, signals: driver, devices: devices, tokenSource: tokenSource, logger: logger ?? quiet)
        let daemon = WardenDaemon(options: options, policy: policy, parts: parts)
        await daemon.startRunning()
        let bed = WardenTestBed(
            clock: manual, alarm: alarm, driver: driver, launcher: launcher, journal: journal, daemon: daemon,
            stateDirectory: directory)
        await bed.settle()
        return bed
    }

    /// The virtual time since the start.
    public var now: Duration { clock.now.offset }

    /// Returns once the daemon has nothing left to do at the current time: every job it was
    /// given, and every job those led to, carried out.
    public func settle() async {
        await daemon.whenIdle()
    }

    /// The next time the daemon asked to be woken, if it did.
    public var nextWake: Duration? {
        alarm.nextDeadline
    }

    /// Moves time on to `time` since the start: the clock stops at every deadline the daemon
    /// asked for on the way, and the daemon is woken there, so each timer fires, and its event
    /// is handled, at its own time, in (deadline, arming) order; returns settled at `time`.
    public func advance(to time: Duration) async {
        await settle()
        var wakesAtOneInstant = 0
        while let next = nextWake, next <= time {
            // A daemon that keeps asking to be woken at the same instant would never let time
            // move on: stop here rather than hang the test.
            wakesAtOneInstant = next <= now ? wakesAtOneInstant + 1 : 0
            guard wakesAtOneInstant < 10_000 else { break }
            clock.advance(to: ManualClock.Instant(offset: max(next, now)))
            alarm.set(nil)
            daemon.wake()
            await settle()
        }
        clock.advance(to: ManualClock.Instant(offset: time))
        await settle()
    }

    /// Moves time on by `duration`.
    public func advance(by duration: Duration) async {
        await advance(to: now + duration)
    }

    /// Stops the daemon and removes the temporary directory.
    public func stop() async {
        await daemon.stop()
        removeStateDirectory()
    }

    /// Removes the temporary directory (also when the daemon was not stopped).
    public func removeStateDirectory() {
        try? FileManager.default.removeItem(atPath: stateDirectory)
    }
}
