import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

/// Apps launched by a wake receive the event that launched them, through the control server.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct ControlServerLaunchTests {
    /// A push that launches an app is delivered before the app's process connects; the app still
    /// receives it on its event stream and completes it, so its window does not time out.
    @Test func anAppLaunchedByAPushReceivesAndCompletesThatPush() async throws {
        let policy = """
            [apps.chat]
            command = "BALLAST"
            args = ["--hold", "1", "--push", "complete:newData:0.2s"]
            background_modes = ["remote-notification"]
            [apps.chat.push]
            window = "4s"
            [apps.chat.background]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["chat"]) { harness in
            let daemon = try await harness.start()
            try await ControlServerHarness.serve(daemon.control, on: harness.options.socketPath) {
                let payload = #"{"aps":{"content-available":1},"id":"m1"}"#
                _ = try await daemon.perform(.push(target: .app("chat"), payload: payload, id: "m1"))
                #expect(await eventually { await daemon.stateName(of: "chat") == "suspended" })
                try await Task.sleep(for: .seconds(4))
                #expect(try await daemon.terminationReasons(of: "chat").isEmpty)
                #expect(await daemon.stateName(of: "chat") == "suspended")
            }
            await daemon.stop()
        }
    }
}
