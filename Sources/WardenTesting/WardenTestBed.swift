import Foundation
public import Logging
public import WardenCore
public import WardenRuntime

/// A daemon in virtual time: `WardenDaemon` on a `ManualClock`, a `FakeCgroupDriver`, a
/// `FakeProcessLauncher` and an in-memory journal, with a way to let it finish what it is doing
/// (`settle`) and to move time on with every timer handled at its own deadline (`advance`).
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
    public let driver: FakeCgroupDriver
    public let launcher: FakeProcessLauncher
    public let journal: WardenMemoryJournal
    public let daemon: WardenDaemon
    /// A temporary directory for the apps' restoration directories and logs.
    public let stateDirectory: String

    /// Starts a daemon on `policy` at the manual clock's time zero.
    ///
    /// - Parameters:
    ///   - sampleInterval: How often the daemon sweeps memory; by default never within a test,
    ///     so that only the footprints and samples a test sends reach the core.
    ///   - configure: Changes the options before the daemon starts.
    ///   - tokenSource: Where device tokens come from; by default the simulator's deterministic
    ///     tokens, so that a replayed scenario's tokens are the ones it names.
    public static func start(
        policy: Policy,
        sampleInterval: Duration = .seconds(1_000_000_000),
        configure: (inout WardenDaemonOptions) -> Void = { _ in },
        tokenSource: DeviceTokenSource = .deterministic,
        logger: Logger? = nil
    ) async -> WardenTestBed {
        let directory = NSTemporaryDirectory() + "appwarden-virtual-\(UUID().uuidString)"
        var options = WardenDaemonOptions(
            policyPath: directory + "/policy.toml", socketPath: directory + "/appwarden.sock",
            stateDirectory: directory, cgroupRoot: "appwarden-virtual", sampleInterval: sampleInterval)
        configure(&options)
        let clock = ManualClock()
        let driver = FakeCgroupDriver()
        let launcher = FakeProcessLauncher(driver: driver)
        let journal = WardenMemoryJournal()
        var quiet = Logger(label: "appwarden.virtual")
        quiet.logLevel = .critical
        let daemon = await WardenDaemon.start(
            options: options, policy: policy, clock: clock, journal: journal, driver: driver, launcher: launcher,
            memory: driver, tokenSource: tokenSource, logger: logger ?? quiet)
        let bed = WardenTestBed(
            clock: clock, driver: driver, launcher: launcher, journal: journal, daemon: daemon,
            stateDirectory: directory)
        await bed.settle()
        return bed
    }

    /// The virtual time since the start.
    public var now: Duration { clock.now.offset }

    /// Returns once the daemon has nothing left to do at the current time: no event queued,
    /// every process end and start the launcher reported taken, and its timer and sweep tasks asleep on
    /// the clock until a later time.
    public func settle() async {
        var quietRounds = 0
        var rounds = 0
        // Bounded, so that a daemon that never settles fails the test rather than hanging it.
        while quietRounds < 2 && rounds < 1_000_000 {
            rounds += 1
            await Task.yield()
            let activity = await daemon.activity()
            let now = clock.now.offset
            let sleeping = Set(clock.sleeperDeadlines.map(\.offset))
            let idle =
                activity.queuedEvents == 0 && activity.exitsHandled == launcher.exitsReported
                && activity.startsHandled == launcher.startsReported
                && activity.wakes.allSatisfy { $0 > now && sleeping.contains($0) }
            quietRounds = idle ? quietRounds + 1 : 0
        }
    }

    /// The next time the daemon wakes by itself, if it sleeps on a deadline.
    public var nextWake: Duration? {
        clock.nextDeadline?.offset
    }

    /// Moves time on to `time` since the start: the clock stops at every deadline on the way,
    /// so each timer fires, and its event is handled, at its own time, in (deadline, arming)
    /// order; returns settled at `time`.
    public func advance(to time: Duration) async {
        await settle()
        while let next = nextWake, next <= time {
            clock.advance(to: ManualClock.Instant(offset: next))
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
