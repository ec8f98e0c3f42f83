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

    /// A daemon given its policy in code (a virtual-time test bed) has no policy file to journal
    /// and does not warn that it could not read one.
    @Test func aDaemonGivenItsPolicyInCodeDoesNotWarnOfAFileItNeverRead() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let policy = try PolicyLoader.parse("[apps.mail]\ncommand = \"/bin/mail\"\n", file: "policy.toml")
        let bed = await WardenTestBed.start(policy: policy, logger: logger)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mail"))
        await bed.stop()
        let log = lines.withLock { $0.joined() }
        #expect(log.contains("Launched app \"mail\""), "log: \(log)")
        #expect(!log.contains("Could not read the policy"), "log: \(log)")
    }
}
