import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("Shared-resource holders")
struct ResourceHoldersTests {
    /// Holders, waiters, OFD locks and leases in /proc/locks are read with hexadecimal device numbers.
    @Test func lockTableLinesAreParsed() throws {
        let text = """
            1: POSIX  ADVISORY  WRITE 4242 08:01:131074 0 EOF
            1: -> POSIX  ADVISORY  WRITE 4243 08:01:131074 0 EOF
            2: FLOCK  ADVISORY  READ 77 00:1a:9 0 EOF
            3: OFDLCK ADVISORY  WRITE -1 fd:02:55 100 199
            4: LEASE  ACTIVE    READ  12 103:05:7 0 EOF

            """
        let entries = try ResourceHolders.parseLocks(text)
        #expect(entries.count == 5)
        #expect(
            entries[0]
                == .init(
                    type: .posix, access: .write, pid: 4242, deviceMajor: 8, deviceMinor: 1, inode: 131_074,
                    isWaiting: false))
        #expect(entries[1].isWaiting && entries[1].pid == 4243)
        #expect(entries[2].type == .flock && entries[2].access == .read && entries[2].deviceMinor == 0x1a)
        #expect(entries[3].type == .ofd && entries[3].pid == -1 && entries[3].deviceMajor == 0xfd)
        #expect(entries[4].type == .lease && entries[4].deviceMajor == 0x103 && entries[4].inode == 7)
    }

    /// A malformed line is refused with its line number and text.
    @Test func malformedLockLineNamesTheLine() {
        let text = "1: POSIX ADVISORY WRITE 10 08:01:5 0 EOF\n2: FLOCK ADVISORY WRITE ten 08:01:6 0 EOF\n"
        let error = #expect(throws: CgroupError.self) { try ResourceHolders.parseLocks(text, source: "fixture/locks") }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains("line 2") == true)
        #expect(error?.message.contains("fixture/locks") == true)
        #expect(error?.message.contains("\"ten\"") == true)
    }

    /// In a fixture tree, a descriptor naming a file beneath a resource directory counts as holding it,
    /// and a process with unrelated descriptors does not.
    @Test func openFilesBeneathADirectoryAreFoundInAFixtureTree() throws {
        let root = ScratchDirectory("holders-fixture")
        defer { root.remove() }
        let proc = root.file("proc")
        let resource = root.file("camera")
        for directory in [proc, resource, proc + "/100", proc + "/100/fd", proc + "/200", proc + "/200/fd"] {
            try Syscalls.mkdir(directory).get()
        }
        let frame = resource + "/frame"
        close(open(frame, O_CREAT | O_WRONLY, 0o644))
        symlink(frame, proc + "/100/fd/7")
        symlink("/dev/null", proc + "/100/fd/3")
        symlink("/dev/null", proc + "/200/fd/4")
        close(open(proc + "/locks", O_CREAT | O_WRONLY, 0o644))

        let holds = try ResourceHolders(procRoot: proc).holds(of: resource, among: [200, 100, 300])
        #expect(holds == [.init(pid: 100, kind: .open(descriptor: 7, target: frame))])
    }

    /// A child that opens one file, flocks a second and fcntl-locks a third is found holding each,
    /// and an unrelated process is not.
    @Test(.requiresBallast)
    func openAndLockedFilesOfAChildAreFound() async throws {
        let directory = ScratchDirectory("holders")
        defer { directory.remove() }
        let opened = directory.file("database")
        let flocked = directory.file("flock.lock")
        let fcntlLocked = directory.file("fcntl.lock")
        let idle = directory.file("idle")
        close(open(idle, O_CREAT | O_WRONLY, 0o644))
        let child = ChildGuard(
            try ProcessSpawner().spawn(
                SpawnRequest(
                    executable: TestHost.ballastPath!,
                    arguments: ["--open", opened, "--lock", flocked, "--fcntl-lock", fcntlLocked],
                    standardOutputPath: directory.file("out.log")
                )
            )
        )
        let ready = await eventually { fileContains(directory.file("out.log"), "ballast: ready") }
        try #require(ready)
        let pid = child.process.pid
        let finder = ResourceHolders()

        let openHolds = try finder.holds(of: opened, among: [pid])
        #expect(openHolds.count == 1)
        #expect(openHolds.first?.pid == pid)
        if case .open(_, let target)? = openHolds.first?.kind { #expect(target == opened) } else { Issue.record() }

        #expect(try finder.holds(of: flocked, among: [pid]).contains(.init(pid: pid, kind: .lock(.flock, .write))))
        #expect(
            try finder.holds(of: fcntlLocked, among: [pid]).contains(.init(pid: pid, kind: .lock(.posix, .write))))
        #expect(try finder.holds(of: opened, among: [getpid()]).isEmpty)
        #expect(try finder.holds(of: idle, among: [pid]).isEmpty)
        #expect(try finder.holds(of: directory.file("missing"), among: [pid]).isEmpty)
        #expect(try finder.firstHold(ofAny: [idle, fcntlLocked], among: [pid])?.pid == pid)
    }
}
