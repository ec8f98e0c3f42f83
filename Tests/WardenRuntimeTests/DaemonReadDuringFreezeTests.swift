import Synchronization
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// Reads (status, explain) against the fake driver with a freezer that takes its time: the
/// daemon answers them between events, never halfway through one.
@Suite struct DaemonReadDuringFreezeTests {
    /// A status read made while the freezer is at work waits for it, so it reports the app
    /// suspended only once its group is frozen, never before.
    @Test func aStatusReadDuringAFreezeAnswersOnlyOnceTheGroupIsFrozen() async throws {
        let policy = try PolicyLoader.parse(
            """
            [apps.notes]
            command = "/bin/notes"
            [apps.notes.background]
            grace = "1s"
            """, file: "policy.toml")
        let bed = await WardenTestBed.start(policy: policy, sampleInterval: .seconds(1_000_000_000))
        defer { bed.removeStateDirectory() }
        defer { bed.driver.releaseFreezes() }
        _ = try await bed.daemon.perform(.open(app: "notes"))
        _ = try await bed.daemon.perform(.home)
        await bed.settle()
        #expect(await bed.control.app(named: "notes")?.state == .background)

        bed.driver.holdFreezes()
        // The grace ends: the core suspends the app and the daemon asks the driver to freeze it.
        #expect(bed.nextWake == .seconds(1))
        bed.clock.advance(to: .init(offset: .seconds(1)))
        bed.daemon.wake()
        var rounds = 0
        while !bed.driver.calls.contains(.freeze("notes")) && rounds < 1_000_000 {
            rounds += 1
            await Task.yield()
        }
        #expect(bed.driver.calls.contains(.freeze("notes")))
        #expect(!bed.driver.isFrozen("notes"))

        let answered = Mutex(false)
        let reader = Task { () -> (state: AppInfo.State?, frozen: Bool) in
            let info = await bed.control.app(named: "notes")
            let frozen = bed.driver.isFrozen("notes")
            answered.withLock { $0 = true }
            return (info?.state, frozen)
        }
        // The read either answers while the freeze is held (the fault) or waits for it (what is
        // wanted): give it every chance to answer early.
        rounds = 0
        while !answered.withLock({ $0 }), rounds < 10_000 {
            rounds += 1
            await Task.yield()
        }
        #expect(!answered.withLock { $0 }, "the read was answered while the freeze was held")
        bed.driver.releaseFreezes()
        let read = await reader.value
        #expect(read.state == .suspended)
        #expect(read.frozen, "the read answered \(String(describing: read.state)) before the group was frozen")
        await bed.settle()
        #expect(try await bed.control.explain(app: "notes").state == .suspended)
        await bed.stop()
    }
}
