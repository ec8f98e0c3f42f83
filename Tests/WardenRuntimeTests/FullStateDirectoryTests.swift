import Foundation
import Logging
import Synchronization
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The state directory's filesystem fills up under a running daemon (a small device's flash):
/// a real SQLite journal on a small tmpfs, with the fake driver and launcher on a manual clock.
@Suite(.serialized, .requiresRoot)
struct FullStateDirectoryTests {
    static let policy = """
        [memory]
        kill_foreground = false
        [apps.mail]
        command = "/bin/mail"
        [apps.maps]
        command = "/bin/maps"
        [apps.notes]
        command = "/bin/notes"
        """

    /// Fills the filesystem of `directory` with a file; returns its path.
    static func fill(_ directory: String) -> String {
        let path = directory + "/filler"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        while write(descriptor, chunk, chunk.count) > 0 {}
        close(descriptor)
        return path
    }

    /// While the filesystem is full the daemon goes on launching and killing and says so once;
    /// once space returns it journals what it kept, and the journal and checkpoint read back whole.
    @Test func aFullFilesystemStopsNeitherSupervisionNorTheJournalOnceSpaceReturns() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-full-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard mount("tmpfs", directory, "tmpfs", 0, "size=1m") == 0 else {
            Issue.record("Could not mount a tmpfs on \(directory): \(String(cString: strerror(errno)))")
            return
        }
        defer {
            umount2(directory, Int32(MNT_DETACH))
            rmdir(directory)
        }
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden.test") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let store = try JournalStore(path: directory + "/journal.sqlite")
        let driver = FakeCgroupDriver()
        let launcher = FakeProcessLauncher(driver: driver)
        let options = WardenDaemonOptions(
            policyPath: directory + "/policy.toml", socketPath: directory + "/appwarden.sock",
            stateDirectory: directory, cgroupRoot: "appwarden-virtual", sampleInterval: .seconds(1_000_000_000))
        let parts = DaemonParts(
            clock: WardenClock.virtual(ManualClock()), alarm: VirtualAlarm(), journal: store, driver: driver,
            launcher: launcher, memory: driver, signals: driver, logger: logger)
        let daemon = WardenDaemon(
            options: options, policy: try PolicyLoader.parse(Self.policy, file: "policy.toml"), parts: parts)
        await daemon.startRunning()
        _ = try await daemon.perform(.open(app: "mail"))
        let before = try store.entries(JournalQuery(limit: 100_000)).count

        let filler = Self.fill(directory)
        _ = try await daemon.perform(.open(app: "maps"))
        _ = try await daemon.perform(.open(app: "notes"))
        for _ in 0..<50 {
            _ = try await daemon.perform(.overlay)
            _ = try await daemon.perform(.overlayEnd)
        }
        _ = try await daemon.perform(.pressure(.critical))
        #expect(launcher.isRunning("notes"))
        #expect(driver.calls.contains(.kill("mail")) || driver.calls.contains(.kill("maps")))
        #expect(try store.entries(JournalQuery(limit: 100_000)).count == before)
        #expect(lines.withLock { $0.filter { $0.contains("Could not write to the journal") }.count } == 1)
        #expect(lines.withLock { $0.filter { $0.contains("Could not save the checkpoint") }.count } == 1)

        unlink(filler)
        _ = try await daemon.perform(.home)
        #expect(lines.withLock { $0.contains { $0.contains("The journal is written again") } })
        let entries = try store.entries(JournalQuery(limit: 100_000))
        #expect(entries.count > before + 100)
        #expect(entries.contains { $0.app == "maps" && $0.name == "$AppStart" })
        #expect(entries.contains { $0.name == "$AppTerminated" && $0.properties["reason"] == "memoryPressure" })
        #expect(
            zip(entries, entries.dropFirst()).allSatisfy { $0.id < $1.id && $0.wallTimeMillis <= $1.wallTimeMillis })
        await daemon.stop()
        #expect(lines.withLock { $0.contains { $0.contains("The checkpoint is saved again") } })

        let reopened = try JournalStore(path: directory + "/journal.sqlite")
        #expect(try reopened.entries(JournalQuery(limit: 100_000)).count > entries.count - 1)
        let saved = try #require(try reopened.checkpoint())
        #expect(saved.json.contains("\"notes\""))
    }
}
