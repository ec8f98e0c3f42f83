import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// Cold launches counted by the daemon in virtual time: the journal, the app list, the device
/// and the metrics say how often the user opened an app the device had killed.
@Suite struct DaemonColdLaunchTests {
    static let mib: Int64 = 1 << 20

    /// mail is killed for memory while suspended and opened again: its `$AppStart` says after
    /// which kill, `status --json` and the device count one cold launch, and so does
    /// `appwarden_cold_launches_total`; maps, opened for the first time, counts none.
    @Test func aReopenedVictimIsACountedColdLaunch() async throws {
        let policy = try PolicyLoader.parse(
            """
            [apps.mail]
            command = "/bin/mail"
            [apps.maps]
            command = "/bin/maps"
            protected = true
            """, file: "cold.toml")
        let bed = await WardenTestBed.start(policy: policy)
        defer { bed.removeStateDirectory() }
        bed.driver.setDeviceMemory(1024 * Self.mib)
        bed.driver.setFootprint(300 * Self.mib, of: "mail")
        _ = try await bed.daemon.perform(.open(app: "mail"))
        _ = try await bed.daemon.perform(.open(app: "maps"))
        await bed.advance(by: .seconds(6))
        #expect(await bed.control.app(named: "mail")?.state == .suspended)
        bed.driver.setDeviceMemory(1024 * Self.mib, reserved: 1000 * Self.mib)
        _ = try await bed.daemon.perform(.memorySample(available: 24 * Self.mib, total: 1024 * Self.mib))
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "mail") == ["memoryPressure"])
        #expect(try await bed.control.device().coldLaunches == 0)

        bed.driver.setDeviceMemory(1024 * Self.mib)
        await bed.settle()
        _ = try await bed.daemon.perform(.open(app: "mail"))
        await bed.settle()
        #expect(await bed.control.app(named: "mail")?.state == .active)
        let starts = bed.journal.entries(JournalQuery(app: "mail", limit: 100)).filter { $0.name == "$AppStart" }
        #expect(starts.map { $0.properties["afterKill"] } == [nil, "memoryPressure"])
        #expect(await bed.control.app(named: "mail")?.coldLaunches == 1)
        #expect(await bed.control.app(named: "maps")?.coldLaunches == 0)
        #expect(try await bed.control.device().coldLaunches == 1)
        let scrape = try MetricsTests.Scrape(parsing: try #require(try await bed.control.metricsExposition()))
        #expect(scrape.types["appwarden_cold_launches_total"] == "counter")
        #expect(scrape[#"appwarden_cold_launches_total{app="mail"}"#] == 1)
        #expect(scrape[#"appwarden_cold_launches_total{app="maps"}"#] == nil)
        await bed.stop()
    }
}
