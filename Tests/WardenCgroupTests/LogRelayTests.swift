import Foundation
import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The log relay between an app's output and its log file: timestamps and size-capped rotation.
@Suite(.requiresExecutable("/bin/sh"))
struct LogRelayTests {
    /// Starts `script` with its output relayed into `log`, waits for it to end and for the relay
    /// to write `lastLine`.
    private func run(_ script: String, log: String, rotation: LogRotation, lastLine: String) async throws {
        let child = ChildGuard(
            try ProcessSpawner().spawn(
                SpawnRequest(
                    executable: "/bin/sh", arguments: ["-c", script], standardOutputPath: log,
                    standardErrorPath: log, logRotation: rotation)))
        #expect(try child.waitAndReap() == .exited(0))
        let written = await eventually(within: .seconds(30)) { fileContains(log, lastLine + "\n") }
        #expect(written, "the relay never wrote \"\(lastLine)\"")
    }

    /// The relay is named "appwarden-relay" in /proc, its comm and its command line, so that it
    /// is not taken for the process it was forked from (`pidof appwarden`).
    @Test func relayIsNamedAsARelay() async throws {
        try await withRelay("relay-name") { relay in
            let comm = try Syscalls.readText("/proc/\(relay)/comm").get()
            #expect(comm == "appwarden-relay\n")
            let commandLine = try Syscalls.readText("/proc/\(relay)/cmdline").get()
            #expect(commandLine.split(separator: "\0").first == "appwarden-relay", "\(commandLine)")
        }
    }

    /// The relay runs the appwarden-relay program built beside these tests, so it holds a few
    /// pages of its own, not the copy of this process's memory that a fork keeps.
    @Test(.enabled(if: LogRelayProgram.path != nil, "Needs appwarden-relay built beside the tests."))
    func relayRunsItsOwnProgramAndHoldsLittleMemory() async throws {
        try await withRelay("relay-program") { relay in
            let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(relay)/exe")
            #expect(program == LogRelayProgram.path)
            let status = try Syscalls.readText("/proc/\(relay)/status").get()
            let anonymousKiB = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") }
                .flatMap { Int($0.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) }
            let kib = try #require(anonymousKiB)
            #expect(kib < 1024, "the relay holds \(kib) KiB of anonymous memory")
        }
    }

    /// A daemon without the program says so once, naming every place it looked (beside its
    /// executable, then where the package installs it) and what the relays cost without it.
    @Test func aMissingProgramIsNamedWithWhereItWasLookedFor() {
        let places = LogRelayProgram.candidates(executable: "/opt/x/bin/appwarden")
        #expect(places == ["/opt/x/bin/appwarden-relay", "/usr/lib/appwarden/appwarden-relay"])
        let sentence = LogRelayProgram.absence(searched: places)
        #expect(sentence.contains(#""/opt/x/bin/appwarden-relay" or "/usr/lib/appwarden/appwarden-relay""#))
        #expect(sentence.contains("stays a fork of the daemon"))
    }

    /// Beside these tests the program is found, and there is nothing to say.
    @Test(.enabled(if: LogRelayProgram.path != nil, "Needs appwarden-relay built beside the tests."))
    func aProgramFoundIsNotMentioned() {
        #expect(LogRelayProgram.absence == nil)
    }

    /// Runs `sleep 60` with its output relayed into a log of a scratch directory named `name`,
    /// and calls `body` with the relay's pid once the relay has written the first line.
    private func withRelay(_ name: String, _ body: (Int32) throws -> Void) async throws {
        let scratch = ScratchDirectory(name)
        defer { scratch.remove() }
        let log = scratch.file("app.log")
        let child = ChildGuard(
            try ProcessSpawner().spawn(
                SpawnRequest(
                    executable: "/bin/sh", arguments: ["-c", "echo started; exec sleep 60"], standardOutputPath: log,
                    standardErrorPath: log, logRotation: LogRotation(maxSize: 1 << 20, keep: 1))))
        defer { withExtendedLifetime(child) {} }
        #expect(await eventually(within: .seconds(30)) { fileContains(log, "started\n") })
        let relays = Self.processes(holding: log)
        let relay = try #require(relays.first, "no process has \(log) open")
        #expect(relays.count == 1)
        try body(relay)
    }

    /// The processes other than this one that have `path` open.
    private static func processes(holding path: String) -> [Int32] {
        var holders: [Int32] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            if descriptors.contains(where: {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == path
            }) {
                holders.append(pid)
            }
        }
        return holders
    }

    /// Each line of standard output and error, and an unfinished last line, is written once,
    /// prefixed with an RFC 3339 UTC time with milliseconds.
    @Test func linesAreTimestamped() async throws {
        let scratch = ScratchDirectory("relay-stamp")
        defer { scratch.remove() }
        let log = scratch.file("app.log")
        try await run(
            "echo one; echo two >&2; printf unfinished", log: log,
            rotation: LogRotation(maxSize: 1 << 20, keep: 3), lastLine: "unfinished")
        let lines = try Syscalls.readText(log).get().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines.last == "")
        let stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (.*)$/
        let messages = lines.dropLast().map { line in line.wholeMatch(of: stamp).map { String($0.1) } }
        #expect(messages == ["one", "two", "unfinished"])
    }

    /// Past the size the file is rotated to .1, .2 …; every file stays within the size, and the
    /// files read oldest first hold every line once, in order.
    @Test func rotationHappensAtTheSizeAndLosesNothing() async throws {
        let scratch = ScratchDirectory("relay-rotate")
        defer { scratch.remove() }
        let log = scratch.file("app.log")
        let maxSize: Int64 = 8192
        try await run(
            "i=1; while [ $i -le 2000 ]; do echo \"line $i\"; i=$((i+1)); done", log: log,
            rotation: LogRotation(maxSize: maxSize, keep: 100), lastLine: "line 2000")
        var files: [String] = []
        var number = 1
        while Syscalls.exists(log + ".\(number)") {
            files.insert(log + ".\(number)", at: 0)
            number += 1
        }
        #expect(files.count >= 8, "2,000 lines of about 35 bytes should fill at least eight 8 KiB files")
        files.append(log)
        var numbers: [Int] = []
        for file in files {
            let text = try Syscalls.readText(file).get()
            #expect(Int64(text.utf8.count) <= maxSize, "\(file) is larger than the limit")
            for line in text.split(separator: "\n") {
                numbers.append(Int(line.split(separator: " ").last ?? "") ?? -1)
            }
        }
        #expect(numbers == Array(1...2000))
    }

    /// Only `keep` rotated files stay; the oldest output goes.
    @Test func onlyKeepRotatedFilesStay() async throws {
        let scratch = ScratchDirectory("relay-keep")
        defer { scratch.remove() }
        let log = scratch.file("app.log")
        try await run(
            "i=1; while [ $i -le 2000 ]; do echo \"line $i\"; i=$((i+1)); done", log: log,
            rotation: LogRotation(maxSize: 8192, keep: 2), lastLine: "line 2000")
        #expect(Syscalls.exists(log + ".1"))
        #expect(Syscalls.exists(log + ".2"))
        #expect(!Syscalls.exists(log + ".3"))
    }
}
