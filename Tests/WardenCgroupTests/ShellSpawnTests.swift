import Foundation
import Testing
import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite struct ShellSpawnTests {
    /// A child started while the calling thread blocks SIGTERM and ignores SIGHUP still ends
    /// on SIGTERM: it starts with no signal blocked and every signal at its default action.
    @Test func theChildStartsWithNoSignalBlockedWhateverTheCallerBlocks() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let pid: Int32
        do {
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            pid = try ShellSpawn.start("exec sleep 100")
        }
        kill(pid, SIGTERM)
        // A child that inherited the mask would hold SIGTERM pending: wait up to 5 s, then kill it.
        var status: Int32 = 0
        var ended = false
        for _ in 0..<500 where !ended {
            ended = waitpid(pid, &status, WNOHANG) == pid
            if !ended { usleep(10_000) }
        }
        if !ended {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        // WIFSIGNALED / WTERMSIG, spelled out: the low seven bits are the signal.
        #expect(status & 0x7f == SIGTERM)
    }

    /// The environment given is the child's whole environment, and a new process group is led
    /// by the child; its output goes where it is sent.
    @Test func environmentGroupAndOutputAreTheOnesGiven() throws {
        let (pid, status, lines) = try Self.run(
            #"echo "$GREETING:${HOME:-none}"; ps -o pgid= -p $$ | tr -d ' '"#,
            environment: ["GREETING": "hello", "PATH": "/usr/bin:/bin"], newProcessGroup: true)
        #expect(status == 0)
        #expect(lines.first == "hello:none")
        #expect(lines.dropFirst().first == String(pid))
    }

    /// The child holds standard input, output and error and nothing else of the caller's, not
    /// even a descriptor the caller left open across exec.
    @Test func noOtherDescriptorIsInherited() throws {
        let inheritable = open("/dev/null", O_RDONLY)
        #expect(inheritable > 2 && fcntl(inheritable, F_GETFD) & FD_CLOEXEC == 0)
        defer { close(inheritable) }
        // /proc/self/fd of `ls` itself: its standard three and the directory it reads.
        let (_, status, lines) = try Self.run("exec ls /proc/self/fd")
        #expect(status == 0)
        let listed = lines.compactMap { Int32($0) }
        #expect(!listed.contains(inheritable), "\(listed)")
        #expect(Set(listed).isSuperset(of: [0, 1, 2]) && listed.count == 4, "\(listed)")
    }

    /// Runs `script` with standard input from /dev/null and its output to a temporary file, waits
    /// for it, and returns its pid, its wait status and the lines it wrote.
    private static func run(
        _ script: String, environment: [String: String]? = nil, newProcessGroup: Bool = false
    ) throws -> (pid: pid_t, status: Int32, lines: [String]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shell-spawn-\(UUID().uuidString).txt")
            .path
        defer { unlink(path) }
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(file >= 0)
        defer { close(file) }
        let pid = try ShellSpawn.start(
            script, environment: environment, descriptors: .init(inputFromNull: true, output: file),
            newProcessGroup: newProcessGroup)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        return (pid, status, lines)
    }
}
