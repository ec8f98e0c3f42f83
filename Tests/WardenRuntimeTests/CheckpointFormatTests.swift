import Foundation
import Logging
import Testing
import WardenCore
import WardenRuntime
import WardenTesting

/// Checkpoints across versions: the one written before the core saved its own records
/// (format 1) is still read, the current one round-trips, and an unknown one is refused.
struct CheckpointFormatTests {
    /// The policy of the daemon that wrote `Tests/Fixtures/checkpoints/format1.json`: mail
    /// backgrounded with an open task and a fetch interval set to 30m, chat backgrounded in a
    /// push window with a random token, notes force-quit.
    static let policy = Policy(
        foregroundSlots: 1,
        apps: [
            AppPolicy(
                name: "mail", command: "ballast", backgroundModes: [.fetch], fetchInterval: .every(.seconds(900))),
            AppPolicy(name: "chat", command: "ballast", backgroundModes: [.remoteNotification]),
            AppPolicy(name: "notes", command: "ballast"),
        ])

    static let token = "80eac7ca00a2c8023e304f658da776ad"

    /// The daemon checkpoint (SQLite `checkpoint.json`) a daemon of format 1 saved on stopping.
    static func format1() throws -> WardenCheckpoint {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/checkpoints/format1.json").standardized.path
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(WardenCheckpoint.self, from: data)
    }

    /// A format-1 checkpoint restores every app with its state, task, budget, fetch plan,
    /// token and force-quit mark, with its times relative to the checkpoint.
    @Test func aFormatOneCheckpointFromThePreviousVersionIsRestored() throws {
        let saved = try Self.format1()
        #expect(saved.lifecycle.format == 1)
        #expect(saved.running.map(\.app) == ["chat", "mail"])
        let then = Instant(sinceOrigin: .seconds(1000))
        let core = Lifecycle(policy: Self.policy, checkpoint: saved.lifecycle, at: then)

        let mail = try #require(core.snapshot(of: "mail", at: then))
        #expect(mail.state == .background)
        #expect(mail.launch == 1)
        #expect(mail.openTasks.map(\.id) == [1])
        #expect(mail.openTasks.map(\.name) == ["upload"])
        #expect(mail.taskTimeRemaining == .milliseconds(590_390))
        #expect(mail.nextFetchWake == then + .milliseconds(1_785_289))
        #expect(
            core.armedTimers().contains {
                $0.timer == TimerID(app: "mail", kind: .taskBudget) && $0.deadline == then + .milliseconds(590_389)
            })

        let chat = try #require(core.snapshot(of: "chat", at: then))
        #expect(chat.state == .background)
        #expect(chat.pushWindowOpen)
        #expect(core.deviceToken(of: "chat") == Self.token)
        #expect(core.deviceTokenOwner(Self.token) == .app("chat"))

        let notes = try #require(core.snapshot(of: "notes", at: then))
        #expect(notes.state == .notRunning)
        #expect(notes.isForceQuit)
    }

    /// A core restored from format 1 writes the current format, which restores the same apps
    /// on a clock an hour later, every deadline moved with it.
    @Test func aRestoredCheckpointIsWrittenInTheCurrentFormatAndReadBackAlike() throws {
        let then = Instant(sinceOrigin: .seconds(1000))
        let core = Lifecycle(policy: Self.policy, checkpoint: try Self.format1().lifecycle, at: then)
        let json = try JSONEncoder().encode(core.checkpoint(at: then))
        let read = try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        #expect(read.format == LifecycleCheckpoint.currentFormat)
        #expect(read.appNames == ["mail", "chat", "notes"])

        let shift: Duration = .seconds(3600)
        let again = Lifecycle(policy: Self.policy, checkpoint: read, at: then + shift)
        for name in ["mail", "chat", "notes"] {
            let before = try #require(core.snapshot(of: name, at: then))
            let after = try #require(again.snapshot(of: name, at: then + shift))
            #expect(after.state == before.state)
            #expect(after.status == before.status)
            #expect(after.openTasks == before.openTasks)
            #expect(after.taskTimeRemaining == before.taskTimeRemaining)
            #expect(after.nextFetchWake == before.nextFetchWake.map { $0 + shift })
            #expect(after.isForceQuit == before.isForceQuit)
            #expect(after.pushWindowOpen == before.pushWindowOpen)
        }
        #expect(again.armedTimers().map(\.timer) == core.armedTimers().map(\.timer))
        #expect(again.armedTimers().map(\.deadline) == core.armedTimers().map { $0.deadline + shift })
        #expect(again.deviceTokenOwner(Self.token) == .app("chat"))
    }

    /// A checkpoint of a format this version does not know is refused with an error naming
    /// the format, instead of being read as something else.
    @Test func aCheckpointOfAnUnknownFormatIsRefusedNamingTheFormat() throws {
        let json = Data(#"{"format": 99, "moment": 0}"#.utf8)
        let error = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        }
        #expect(String(describing: error).contains("format 99"))
    }

    /// A daemon that finds a checkpoint it cannot read starts afresh and keeps that checkpoint
    /// in a file in its state directory, so that its next save loses nothing.
    @Test func aDaemonKeepsACheckpointItCannotReadInItsStateDirectory() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-unread-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unread = #"{"lifecycle":{"format":99},"running":[]}"#
        let journal = WardenMemoryJournal()
        try journal.saveCheckpoint(unread, wallTimeMillis: 1234)
        let options = WardenDaemonOptions(
            policyPath: directory + "/policy.toml", socketPath: directory + "/appwarden.sock",
            stateDirectory: directory, cgroupRoot: "appwarden-virtual", sampleInterval: .seconds(1_000_000_000))
        let driver = FakeCgroupDriver()
        let parts = DaemonParts(
            clock: WardenClock.virtual(ManualClock()), alarm: VirtualAlarm(), journal: journal, driver: driver,
            launcher: FakeProcessLauncher(driver: driver), memory: driver, signals: driver,
            logger: Logger(label: "appwarden.test"))
        let daemon = WardenDaemon(options: options, policy: Self.policy, parts: parts)
        await daemon.startRunning()
        _ = try await daemon.perform(.open(app: "notes"))
        await daemon.stop()

        let kept = try String(contentsOfFile: directory + "/checkpoint-unread-1234.json", encoding: .utf8)
        #expect(kept == unread)
        let saved = try #require(journal.checkpoint()?.json)
        #expect(saved.contains(#""format":\#(LifecycleCheckpoint.currentFormat)"#))
    }
}
