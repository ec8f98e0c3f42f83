import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

/// Rule 14 with real apps in real groups: an app that begins an activity through the socket
/// keeps running in background while the others are frozen.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresBallast,
    // The app in this test calls the socket with curl.
    .requiresExecutable("/usr/bin/curl")
)
struct DaemonActivityTests {
    /// A player that begins an audio activity keeps running in background past the grace — its
    /// group is not frozen and it goes on writing — while an idle app is frozen; once the
    /// activity ends, the player is frozen after the grace too.
    @Test func anAppHoldingAnActivityKeepsRunningInBackgroundWhileOthersAreFrozen() async throws {
        let script = """
            curl -s -o DIR/begun.json --unix-socket "$APPWARDEN_SOCKET" -X POST -H 'Content-Type: application/json' -d '{"mode":"audio"}' http://localhost/v1/apps/player/begin-activity
            while :; do echo tick >> DIR/ticks; sleep 0.05; done
            """
        let policy = """
            [apps.notes]
            command = "BALLAST"
            args = ["--hold", "1"]
            [apps.notes.background]
            grace = "1s"
            [apps.player]
            command = "/bin/bash"
            args = ["-c", '''\(script)''']
            background_modes = ["audio"]
            [apps.player.background]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["notes", "player"]) { harness in
            let daemon = try await harness.start()
            try await ControlServerHarness.serve(daemon.control, on: harness.options.socketPath) {
                let dir = harness.directory
                _ = try await daemon.perform(.open(app: "notes"))
                #expect(await eventually { await daemon.control.app(named: "notes")?.pids.isEmpty == false })
                _ = try await daemon.perform(.open(app: "player"))
                #expect(await eventually { FileManager.default.fileExists(atPath: dir + "/begun.json") })
                let begun = try JSONDecoder().decode(
                    ControlReplies.ActivityBegun.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/begun.json"))
                )
                #expect(begun.id == 1)
                #expect(await daemon.control.app(named: "player")?.activities == [ActivityInfo(id: 1, mode: "audio")])
                _ = try await daemon.perform(.home)

                let (notesDriver, notesGroup) = try harness.group(of: "notes")
                #expect(await eventually { (try? await notesDriver.isFrozen(notesGroup)) == true })
                try await Task.sleep(for: .seconds(2))
                let (driver, group) = try harness.group(of: "player")
                #expect(await daemon.stateName(of: "player") == "background")
                #expect(await daemon.control.app(named: "player")?.band == .activity)
                #expect(await daemon.control.app(named: "player")?.cpuClass == "activity")
                #expect(try await !driver.isFrozen(group))
                let before = try Self.ticks(in: dir)
                try await Task.sleep(for: .milliseconds(500))
                #expect(try Self.ticks(in: dir) > before, "the player stopped running in background")

                _ = try await daemon.perform(.endActivity(app: "player", activityID: 1))
                #expect(await eventually { await daemon.stateName(of: "player") == "suspended" })
                #expect(await eventually { (try? await driver.isFrozen(group)) == true })
                #expect(try await daemon.terminationReasons(of: "player").isEmpty)
            }
            await daemon.stop()
        }
    }

    /// How many lines the player has written.
    static func ticks(in directory: String) throws -> Int {
        try String(contentsOfFile: directory + "/ticks", encoding: .utf8).split(separator: "\n").count
    }
}
