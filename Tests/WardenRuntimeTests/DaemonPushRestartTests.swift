import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

/// Push bookkeeping carried across a restart of the daemon.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonPushRestartTests {
    /// After a restart a delivered id is still a duplicate and the hour's only wake slot is
    /// still taken, so a new push is coalesced rather than delivered.
    @Test func aRestartedDaemonKeepsDeliveredIDsAndTheHoursWakeSlots() async throws {
        let policy = """
            [apps.chat]
            command = "/bin/sh"
            args = ["-c", "while true; do sleep 0.2; done"]
            background_modes = ["remote-notification"]
            [apps.chat.push]
            max_per_hour = 1
            window = "1m"
            """
        func payload(_ id: String) -> String { #"{"aps":{"content-available":1},"id":"\#(id)"}"# }
        try await DaemonHarness.run(policy: policy, apps: ["chat"]) { harness in
            let first = try await harness.start()
            #expect(
                try await first.perform(.push(target: .app("chat"), payload: payload("p1"), id: nil))
                    == .push(.delivered))
            #expect(
                try await first.perform(.push(target: .app("chat"), payload: payload("p2"), id: nil))
                    == .push(.coalesced))
            await first.stop()

            let second = try await harness.start()
            #expect(await second.stateName(of: "chat") == "background")
            #expect(
                try await second.perform(.push(target: .app("chat"), payload: payload("p1"), id: nil))
                    == .push(.duplicate))
            #expect(
                try await second.perform(.push(target: .app("chat"), payload: payload("p3"), id: nil))
                    == .push(.coalesced))
            let delivered = try await second.control.journal(JournalQuery(app: "chat")).filter {
                $0.name == "pushPayload"
            }
            #expect(delivered.map { $0.properties["id"] } == ["p1"])
            await second.stop()
        }
    }
}
