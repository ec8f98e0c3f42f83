import Foundation
import Testing
import WardenTesting

@testable import WardenRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// Who is an operator: a caller in the socket's group counts whether that group is its primary
/// one or one of its supplementary groups, as the socket's file mode lets it connect.
@Suite(
    .requiresRoot, .requiresExecutable("/usr/bin/setpriv"),
    .enabled(if: getgrnam("users") != nil && getgrnam("nogroup") != nil, "Needs the groups users and nogroup."))
struct OperatorIdentityTests {
    /// A process of user nobody whose supplementary groups hold the socket's group is an
    /// operator; the same user without it is refused, with a sentence naming the process.
    @Test func aMemberOfTheSocketsGroupAsASupplementaryGroupIsAnOperator() async throws {
        let users = try #require(getgrnam("users")).pointee.gr_gid
        let nogroup = try #require(getgrnam("nogroup")).pointee.gr_gid
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aw-operator-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/control.sock"
        #expect(FileManager.default.createFile(atPath: socketPath, contents: nil))
        #expect(chown(socketPath, uid_t.max, users) == 0)

        let member = try Self.sleeper(["--groups", "\(users)"])
        let outsider = try Self.sleeper(["--clear-groups"])
        defer {
            for process in [member, outsider] {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        let nobody: UInt32 = 65534
        let asMember = PeerCredentials(pid: member.processIdentifier, uid: nobody, gid: nogroup)
        #expect(CallerIdentity.operatorIdentity(of: asMember, socketPath: socketPath) == .operator)
        let asOutsider = PeerCredentials(pid: outsider.processIdentifier, uid: nobody, gid: nogroup)
        guard case .denied(let sentence) = CallerIdentity.operatorIdentity(of: asOutsider, socketPath: socketPath)
        else {
            Issue.record("A caller outside the socket's group was not refused.")
            return
        }
        #expect(sentence.contains("Process \(outsider.processIdentifier)"))
        // The primary group alone still counts.
        let primary = PeerCredentials(pid: outsider.processIdentifier, uid: nobody, gid: users)
        #expect(CallerIdentity.operatorIdentity(of: primary, socketPath: socketPath) == .operator)
    }

    /// `sleep 30` as user and group nobody/nogroup with `setpriv`'s group arguments.
    private static func sleeper(_ groups: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534"] + groups + ["/bin/sleep", "30"]
        try process.run()
        // setpriv changes its groups before it becomes sleep: wait until it has.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/cmdline", encoding: .utf8),
                text.hasPrefix("/bin/sleep")
            {
                break
            }
            usleep(5_000)
        }
        return process
    }
}
