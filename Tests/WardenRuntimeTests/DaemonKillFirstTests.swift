import Foundation
import Logging
import Synchronization
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// A kill for memory is carried out before what comes with it: the records, the status change
/// and the log lines that explain it.
struct DaemonKillFirstTests {
    /// The log lines that say why an app was killed for memory are written once it is killed: a
    /// write to a slow log never holds the kill up.
    @Test func theLogLinesOfAKillForMemoryFollowTheKill() async throws {
        // Each memory line, with whether the victim's group had been killed when it was written.
        let lines = Mutex<[(line: String, afterKill: Bool)]>([])
        let driver = Mutex<FakeCgroupDriver?>(nil)
        let logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label) { line in
                guard line.contains("for memory pressure") || line.contains("Memory pressure normal") else { return }
                let killed = driver.withLock { $0?.calls.contains(.kill("idle")) } ?? false
                lines.withLock { $0.append((line, killed)) }
            }
        }
        let policy = try PolicyLoader.parse(
            """
            [apps.idle]
            command = "/bin/idle"
            [apps.front]
            command = "/bin/front"
            """, file: "policy.toml")
        let bed = await WardenTestBed.start(policy: policy, logger: logger) { fake, _ in
            driver.withLock { $0 = fake }
        }
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "idle"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(by: .seconds(10))
        #expect(await bed.control.app(named: "idle")?.state == .suspended)
        _ = try await bed.daemon.perform(.pressure(.critical))
        await bed.settle()
        #expect(await bed.control.app(named: "idle")?.state == .notRunning)
        await bed.stop()
        let written = lines.withLock { $0 }
        #expect(written.contains { $0.line.contains("Memory pressure normal → critical") })
        #expect(written.contains { $0.line.contains("Killed app \"idle\" for memory pressure: suspended band") })
        #expect(written.allSatisfy { $0.afterKill }, "\(written)")
    }

    /// A kill for memory is logged once, after the change of level that led to it, with the
    /// major page faults the kill cost the daemon in the same line.
    @Test func aKillForMemoryIsLoggedOnceAfterTheLevelChange() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let policy = try PolicyLoader.parse(
            """
            [apps.idle]
            command = "/bin/idle"
            [apps.front]
            command = "/bin/front"
            """, file: "policy.toml")
        let bed = await WardenTestBed.start(policy: policy, logger: logger)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "idle"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(by: .seconds(10))
        _ = try await bed.daemon.perform(.pressure(.critical))
        await bed.settle()
        #expect(await bed.control.app(named: "idle")?.state == .notRunning)
        await bed.stop()
        let log = lines.withLock { $0 }
        let kills = log.indices.filter { log[$0].contains("Killed app \"idle\"") }
        let change = try #require(log.firstIndex { $0.contains("Memory pressure normal → critical") })
        #expect(kills.count == 1, "\(log)")
        #expect(kills.allSatisfy { $0 > change }, "\(log)")
        #expect(
            kills.allSatisfy {
                log[$0].contains("for memory pressure: suspended band")
                    && log[$0].contains("; the daemon took ")
                    && log[$0].contains(" since the measurement that chose it.")
            }, "\(log)")
    }
}
