import Foundation
import Testing
import WardenCgroup
import WardenCore
import WardenTesting

@testable import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Each app's own folder (its HOME when it runs as another user) and restoration directory: the
/// app's user's, closed to every other app's user, and so are the apps' logs.
struct AppFolderTests {
    /// Owner and permission bits of `path` (not following a link).
    static func owner(of path: String) -> (uid: UInt32, gid: UInt32, mode: UInt32)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let uid = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value,
            let gid = (attributes[.groupOwnerAccountID] as? NSNumber)?.uint32Value,
            let mode = (attributes[.posixPermissions] as? NSNumber)?.uint32Value
        else { return nil }
        return (uid, gid, mode & 0o7777)
    }

    /// Whether user `uid` (group `gid`) can read `path`, tried with `cat` run as that user;
    /// "readable" or "refused", nil when the try did not finish.
    static func read(_ path: String, as uid: UInt32, gid: UInt32, answerIn directory: String) throws -> String? {
        let answer = directory + "/answer-\(UUID().uuidString.prefix(8))"
        defer { unlink(answer) }
        let process = try ProcessSpawner().spawn(
            SpawnRequest(
                executable: "/bin/sh",
                arguments: ["-c", "cat \"$1\" >/dev/null 2>&1 && echo readable || echo refused", "sh", path],
                environment: ["PATH": "/usr/bin:/bin"], user: .ids(uid: uid, gid: gid),
                standardOutputPath: answer, standardErrorPath: answer))
        defer { close(process.pidfd) }
        guard try process.waitForExit(timeout: .seconds(10)) else {
            kill(process.pid, SIGKILL)
            return nil
        }
        return (try? String(contentsOfFile: answer, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Two apps of other users each save their state in their own restoration directory (mode
    /// 0700, owned by the app's user), with a HOME of their own rather than the daemon's, and
    /// neither user can read the other app's saved state or log.
    @Test(.requiresRootCgroups)
    func appsOfOtherUsersKeepTheirStateAndLogsToThemselves() async throws {
        // One user named, one by a number that has no passwd entry (its group is the same number).
        // The variable's name is split: the harness replaces the word DIR in a policy.
        let policy = """
            [apps.mail]
            command = "/bin/sh"
            args = ["-c", "d=$(printenv APPWARDEN_RESTORATION_D''IR) && printf '%s' \\"$HOME\\" > \\"$d/state.json\\" && echo saved && exec sleep 1000"]
            user = "nobody"

            [apps.maps]
            command = "/bin/sh"
            args = ["-c", "d=$(printenv APPWARDEN_RESTORATION_D''IR) && printf '%s' \\"$HOME\\" > \\"$d/state.json\\" && echo saved && exec sleep 1000"]
            user = 64123
            """
        let users: [String: (uid: UInt32, gid: UInt32)] = ["mail": (65534, 65534), "maps": (64123, 64123)]
        try await DaemonHarness.run(policy: policy, apps: ["mail", "maps"]) { harness in
            let daemon = try await harness.start(stopAppsOnExit: true)
            let options = harness.options
            for app in ["mail", "maps"] {
                _ = try await daemon.perform(.open(app: app))
            }
            for app in ["mail", "maps"] {
                let user = try #require(users[app])
                let state = options.restorationDirectory(of: app) + "/state.json"
                #expect(await eventually(within: .seconds(10)) { FileManager.default.fileExists(atPath: state) })
                let home = try String(contentsOfFile: state, encoding: .utf8)
                #expect(home == options.appDirectory(of: app))
                #expect(home != "/root")
                for directory in [options.appDirectory(of: app), options.restorationDirectory(of: app)] {
                    let found = try #require(Self.owner(of: directory))
                    #expect(found.uid == user.uid && found.gid == user.gid, "\(directory)")
                    #expect(found.mode == 0o700, "\(directory)")
                }
                #expect(Self.owner(of: state)?.uid == user.uid)
                let log = options.logPath(of: app)
                #expect(
                    await eventually(within: .seconds(10)) {
                        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("saved")
                    })
                #expect(Self.owner(of: log).map { $0.mode & 0o007 } == 0)
            }
            #expect(Self.owner(of: options.logDirectory)?.mode == 0o700)
            let mail = try #require(users["mail"])
            let maps = try #require(users["maps"])
            let mapsState = options.restorationDirectory(of: "maps") + "/state.json"
            let mailState = options.restorationDirectory(of: "mail") + "/state.json"
            // Each user reads its own state, so that a refusal below is the other app's folder's doing.
            #expect(try Self.read(mapsState, as: maps.uid, gid: maps.gid, answerIn: harness.directory) == "readable")
            #expect(try Self.read(mapsState, as: mail.uid, gid: mail.gid, answerIn: harness.directory) == "refused")
            #expect(try Self.read(mailState, as: maps.uid, gid: maps.gid, answerIn: harness.directory) == "refused")
            let mapsLog = options.logPath(of: "maps")
            #expect(try Self.read(mapsLog, as: mail.uid, gid: mail.gid, answerIn: harness.directory) == "refused")
            await daemon.stop()
        }
    }

    /// What a daemon made as root before apps had their own users (a restoration directory at the
    /// former place, an app folder of root's, a log readable by everyone) is handed over at the
    /// next launch: the app of another user can write its saved state again, and the log is closed.
    @Test(.requiresRootCgroups)
    func directoriesMadeByRootAreHandedToTheAppsUserAtTheNextLaunch() async throws {
        // The variable's name is split: the harness replaces the word DIR in a policy.
        let policy = """
            [apps.mail]
            command = "/bin/sh"
            args = ["-c", "d=$(printenv APPWARDEN_RESTORATION_D''IR) && echo more >> \\"$d/state.json\\" && echo appended && exec sleep 1000"]
            user = 65534

            [apps.maps]
            command = "/bin/sh"
            args = ["-c", "d=$(printenv APPWARDEN_RESTORATION_D''IR) && echo more >> \\"$d/state.json\\" && echo appended && exec sleep 1000"]
            user = 65534
            """
        try await DaemonHarness.run(policy: policy, apps: ["mail", "maps"]) { harness in
            let options = harness.options
            let manager = FileManager.default
            let former = options.formerRestorationDirectory(of: "mail")
            let rootFolder = options.restorationDirectory(of: "maps")
            for directory in [former, rootFolder, options.logDirectory] {
                try manager.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            }
            for directory in [former, rootFolder] {
                try "saved\n".write(toFile: directory + "/state.json", atomically: false, encoding: .utf8)
                chmod(directory + "/state.json", 0o644)
            }
            try "earlier output\n".write(toFile: options.logPath(of: "mail"), atomically: false, encoding: .utf8)
            chmod(options.logPath(of: "mail"), 0o644)

            let daemon = try await harness.start(stopAppsOnExit: true)
            #expect(Self.owner(of: options.logPath(of: "mail"))?.mode == 0o640)
            #expect(Self.owner(of: options.logDirectory)?.mode == 0o700)
            for app in ["mail", "maps"] {
                _ = try await daemon.perform(.open(app: app))
                let log = options.logPath(of: app)
                #expect(
                    await eventually(within: .seconds(10)) {
                        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("appended")
                    })
                let state = options.restorationDirectory(of: app) + "/state.json"
                #expect((try? String(contentsOfFile: state, encoding: .utf8)) == "saved\nmore\n")
                for path in [options.appDirectory(of: app), options.restorationDirectory(of: app), state] {
                    #expect(Self.owner(of: path)?.uid == 65534, "\(path)")
                }
                #expect(Self.owner(of: options.restorationDirectory(of: app))?.mode == 0o700)
            }
            #expect(!manager.fileExists(atPath: former))
            await daemon.stop()
        }
    }

    /// An app without a user of its own keeps the daemon's HOME; an app of another user has its
    /// folder as HOME, unless its policy's `env` names one.
    @Test func onlyAnAppOfAnotherUserHasItsFolderAsHome() async throws {
        let policy = Policy(apps: [
            AppPolicy(name: "mail", command: "/bin/mail"),
            AppPolicy(name: "maps", command: "/bin/maps", user: "65534"),
            AppPolicy(name: "chat", command: "/bin/chat", env: ["HOME": "/srv/chat"], user: "65534"),
        ])
        let bed = await WardenTestBed.start(policy: policy)
        defer { bed.removeStateDirectory() }
        var homes: [String: String?] = [:]
        for app in ["mail", "maps", "chat"] {
            _ = try await bed.daemon.perform(.open(app: app))
            homes[app] = bed.launcher.launches.last?.request.environment["HOME"]
        }
        #expect(homes["mail"] == ProcessInfo.processInfo.environment["HOME"])
        #expect(homes["maps"] == bed.daemon.options.appDirectory(of: "maps"))
        #expect(homes["chat"] == "/srv/chat")
        await bed.stop()
    }

    /// A state directory an app's user may not pass through (mode 0700, as a unit's
    /// `StateDirectoryMode=` may make it) is named, with its mode and what to do, by the warnings
    /// `policy reload` prints; search permission for others or for the app's group lets it through.
    @Test(.requiresRoot)
    func aStateDirectoryClosedToTheAppsUserIsNamed() throws {
        let state = NSTemporaryDirectory() + "appwarden-reach-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: state + "/apps", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let policy = Policy(apps: [
            AppPolicy(name: "mail", command: "/bin/sh", user: "65534"),
            AppPolicy(name: "maps", command: "/bin/sh"),
        ])
        chown(state, 0, 0)
        chmod(state, 0o700)
        let warnings = PolicyWarnings.warnings(for: policy, stateDirectory: state)
        #expect(warnings.count == 1, "\(warnings)")
        let warning = try #require(warnings.first)
        #expect(warning.hasPrefix("app \"mail\": its user (uid 65534) cannot pass through \"\(state)\" (mode 0700"))
        #expect(warning.contains("chmod o+x"))
        // Without the state directory (a `policy check`), nothing is said of it.
        #expect(PolicyWarnings.warnings(for: policy).isEmpty)

        chmod(state, 0o711)
        #expect(PolicyWarnings.unreachableFolders(policy, stateDirectory: state).isEmpty)
        chmod(state, 0o710)
        #expect(PolicyWarnings.unreachableFolders(policy, stateDirectory: state).count == 1)
        chown(state, 0, 65534)
        #expect(PolicyWarnings.unreachableFolders(policy, stateDirectory: state).isEmpty)
        // The folder of all the apps' folders counts as well.
        chmod(state + "/apps", 0o700)
        #expect(PolicyWarnings.unreachableFolders(policy, stateDirectory: state).count == 1)
    }
}
