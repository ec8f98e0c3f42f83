import Foundation
import Logging
import Synchronization
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// A daemon restarted on the manual clock from the checkpoint of the one before, with the apps
/// that one left running.
struct DaemonVirtualRestartTests {
    /// After a restart on a policy without it, an app of the old policy that was still running
    /// (suspended) is killed, and the log says it is killed because the policy no longer declares
    /// it, not that it was not running.
    @Test func anAppTheNewPolicyNoLongerDeclaresIsKilledAndTheLogSaysWhy() async throws {
        let old = try PolicyLoader.parse(
            """
            [apps.mail]
            command = "/bin/mail"
            [apps.nameuser]
            command = "/bin/nameuser"
            """, file: "policy.toml")
        let first = await WardenTestBed.start(policy: old)
        defer { first.removeStateDirectory() }
        _ = try await first.daemon.perform(.open(app: "nameuser"))
        _ = try await first.daemon.perform(.open(app: "mail"))
        await first.advance(by: .seconds(10))
        #expect(await first.daemon.control.app(named: "nameuser")?.state == .suspended)
        await first.daemon.stop()

        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let new = try PolicyLoader.parse("[apps.mail]\ncommand = \"/bin/mail\"\n", file: "policy.toml")
        let restarted = await WardenTestBed.start(
            policy: new, logger: logger, restarting: (first.journal, first.stateDirectory)
        ) { _, launcher in
            launcher.takeOver(from: first.launcher)
        }
        #expect(restarted.driver.calls.contains(.kill("nameuser")))
        #expect(!restarted.launcher.isRunning("nameuser"))
        #expect(await restarted.daemon.control.app(named: "mail")?.state == .active)
        await restarted.stop()
        let log = lines.withLock { $0 }
        #expect(
            log.contains {
                $0.contains(
                    "of app \"nameuser\", which was running under the previous policy: the policy no longer declares it."
                )
            }, "\(log)")
        #expect(!log.contains { $0.contains("which is not running") }, "\(log)")
    }
}
