import Foundation
import Logging
import Synchronization
import Testing
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// What the daemon's log says about a launch, on the fake launcher.
struct DaemonLaunchLogTests {
    /// A launch that holds the daemon's loop up says for how long, in real time, whatever the
    /// daemon's own (manual) clock says.
    @Test func aLaunchSaysHowLongItHeldTheLoopUp() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let policy = try PolicyLoader.parse(
            """
            [apps.slow]
            command = "/bin/slow"
            [apps.quick]
            command = "/bin/quick"
            """, file: "policy.toml")
        let bed = await WardenTestBed.start(policy: policy, logger: logger) { _, launcher in
            launcher.setLaunchDuration(.milliseconds(120), app: "slow")
        }
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "slow"))
        _ = try await bed.daemon.perform(.open(app: "quick"))
        await bed.settle()
        await bed.stop()
        let log = lines.withLock { $0.joined() }
        let pattern = #/Launched app "(\w+)" \(launch 1, user\) as process (\d+) in (\d+) ms\./#
        var took: [String: Int] = [:]
        for match in log.matches(of: pattern) { took[String(match.output.1)] = Int(match.output.3) }
        #expect(took.keys.sorted() == ["quick", "slow"], "log: \(log)")
        #expect(took["slow"].map { $0 >= 120 } == true)
        #expect(took["quick"].map { $0 < 120 } == true)
    }
}
