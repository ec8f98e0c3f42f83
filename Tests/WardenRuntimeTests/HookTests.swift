import Foundation
import Logging
import Synchronization
import Testing
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The operator's hooks run for real: a shell script started by a daemon in virtual time when
/// the core kills an app for memory and when the pressure level changes.
@Suite struct HookTests {
    static let mib: Int64 = 1 << 20

    /// A temporary directory with an executable hook script in it; removed by `remove()`.
    struct HookDirectory {
        let path: String

        init(script: String) throws {
            path = NSTemporaryDirectory() + "appwarden-hooks-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let hook = path + "/hook.sh"
            try ("#!/bin/sh\n" + script).write(toFile: hook, atomically: true, encoding: .utf8)
            chmod(hook, 0o755)
        }

        var hook: String { path + "/hook.sh" }

        func remove() { try? FileManager.default.removeItem(atPath: path) }

        /// The `KEY=value` lines of a file the hook wrote, nil until it exists and ends with "END".
        func variables(_ name: String) -> [String: String]? {
            guard let text = try? String(contentsOfFile: path + "/" + name, encoding: .utf8),
                text.hasSuffix("END\n")
            else { return nil }
            var variables: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return variables
        }
    }

    /// A daemon in virtual time whose policy runs `hooks`; mail (300 MiB) is suspended and maps
    /// (protected) is in the foreground, on a 1 GiB device where critical pressure ends only
    /// with 400 MiB available.
    static func bed(hooks: String, logger: Logger? = nil) async throws -> WardenTestBed {
        let policy = """
            [memory]
            warning_enter = "100MiB"
            warning_exit = "400MiB"
            critical_enter = "100MiB"
            critical_exit = "400MiB"
            [hooks]
            \(hooks)
            [apps.mail]
            command = "/bin/mail"
            [apps.maps]
            command = "/bin/maps"
            protected = true
            """
        let bed = await WardenTestBed.start(policy: try PolicyLoader.parse(policy, file: "hooks.toml"), logger: logger)
        bed.driver.setDeviceMemory(1024 * mib)
        _ = try await bed.daemon.perform(.open(app: "mail"))
        bed.driver.setFootprint(300 * mib, of: "mail")
        _ = try await bed.daemon.perform(.footprint(app: "mail", bytes: 300 * mib))
        _ = try await bed.daemon.perform(.open(app: "maps"))
        await bed.advance(by: .seconds(6))
        return bed
    }

    /// Fills the device so that the daemon measures memory critical (24 MiB available) and
    /// kills mail; with 324 MiB available after the kill it stays critical, so the level changes once.
    static func squeeze(_ bed: WardenTestBed) async throws {
        bed.driver.setDeviceMemory(1024 * mib, reserved: 700 * mib)
        await bed.settle()
    }

    /// A memory kill runs on_kill with the app, the reason, the footprint, the band and the
    /// level in its environment, and on_pressure with the new and the old level; what the hook
    /// prints goes to the daemon's log.
    @Test func aMemoryKillRunsBothHooksWithTheFactsInTheirEnvironment() async throws {
        let directory = try HookDirectory(
            script: """
                env | grep '^APPWARDEN_' > "$(dirname "$0")/$APPWARDEN_HOOK.part"
                echo END >> "$(dirname "$0")/$APPWARDEN_HOOK.part"
                mv "$(dirname "$0")/$APPWARDEN_HOOK.part" "$(dirname "$0")/$APPWARDEN_HOOK.env"
                echo "hook saw $APPWARDEN_HOOK"
                """)
        defer { directory.remove() }
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden.hooks.test") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let bed = try await Self.bed(
            hooks: "on_kill = \"\(directory.hook)\"\non_pressure = \"\(directory.hook)\"", logger: logger)
        defer { bed.removeStateDirectory() }
        try await Self.squeeze(bed)
        #expect(try await bed.daemon.terminationReasons(of: "mail") == ["memoryPressure"])
        #expect(
            await eventually { directory.variables("kill.env") != nil && directory.variables("pressure.env") != nil })
        let kill = try #require(directory.variables("kill.env"))
        #expect(kill["APPWARDEN_APP"] == "mail")
        #expect(kill["APPWARDEN_REASON"] == "memoryPressure")
        #expect(kill["APPWARDEN_FOOTPRINT"] == String(300 * Self.mib))
        #expect(kill["APPWARDEN_BAND"] == "suspended")
        #expect(kill["APPWARDEN_LEVEL"] == "critical")
        let pressure = try #require(directory.variables("pressure.env"))
        #expect(pressure["APPWARDEN_LEVEL"] == "critical")
        #expect(pressure["APPWARDEN_PREVIOUS_LEVEL"] == "normal")
        #expect(pressure["APPWARDEN_AVAILABLE"] == String(24 * Self.mib))
        #expect(pressure["APPWARDEN_APP"] == nil)
        #expect(await eventually { bed.daemon.hooks.runs.count == 2 })
        #expect(bed.daemon.hooks.runs.allSatisfy { $0.outcome == .finished(status: 0) })
        let logged = lines.withLock { $0 }
        #expect(logged.contains { $0.contains("Hook on_kill (app \"mail\"): hook saw kill") })
        #expect(logged.contains { $0.contains("Hook on_pressure: hook saw pressure") })
        // A kill for memory says what the daemon itself waited for storage meanwhile.
        #expect(
            logged.contains {
                $0.contains("Killed app \"mail\" for memory pressure: ") && $0.contains("; the daemon took ")
                    && $0.contains(" since the measurement that chose it.")
            })
        await bed.stop()
    }

    /// A hook that overruns its timeout does not hold up the kill; it runs in the daemon's own
    /// group (no app's), and when the timeout ends its whole process group is killed,
    /// background children included.
    @Test func aHookThatOverrunsItsTimeoutIsKilledWithItsGroupAndDelaysNothing() async throws {
        let directory = try HookDirectory(
            script: """
                sleep 300 &
                echo $! > "$(dirname "$0")/child"
                wait
                """)
        defer { directory.remove() }
        let bed = try await Self.bed(hooks: "on_kill = \"\(directory.hook)\"\ntimeout = \"1s\"")
        defer { bed.removeStateDirectory() }
        func pid(_ name: String) -> Int32? {
            (try? String(contentsOfFile: directory.path + "/" + name, encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        let started = Mutex<pid_t?>(nil)
        defer {
            // Whatever happened, nothing the hook started outlives the test.
            if let group = started.withLock({ $0 }) { kill(-group, SIGKILL) }
        }
        try await Self.squeeze(bed)
        // The kill is done and journaled while the hook still runs.
        #expect(try await bed.daemon.terminationReasons(of: "mail") == ["memoryPressure"])
        #expect(bed.driver.calls.contains(.kill("mail")))
        #expect(bed.daemon.hooks.runs.isEmpty)
        #expect(await eventually { pid("child") != nil })
        let child = try #require(pid("child"))
        let group = getpgid(child)
        started.withLock { $0 = group }
        // A group of its own, not the daemon's, in the daemon's cgroup rather than an app's.
        #expect(group > 0 && group != getpgid(0))
        let ownGroup = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        #expect((try? String(contentsOfFile: "/proc/\(child)/cgroup", encoding: .utf8)) == ownGroup)
        // The timeout runs on the daemon's clock: 1 s of virtual time later the group is killed.
        await bed.advance(by: .seconds(2))
        #expect(await eventually { bed.daemon.hooks.runs.map(\.outcome) == [.timedOut] })
        #expect(await eventually { kill(-group, 0) == -1 && errno == ESRCH })
        await bed.stop()
    }
}
