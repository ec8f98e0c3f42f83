import Foundation
import Synchronization
import Testing
import WardenCgroup
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How the process watcher reports the ends of real processes.
@Suite(.serialized, .requiresRoot)
struct ProcessWatcherTests {
    /// The ends reported so far, gathered from the watcher's thread.
    private final class Reports: Sendable {
        private let exits = Mutex<[ProcessWatcher.Exit]>([])

        func append(_ exit: ProcessWatcher.Exit) { exits.withLock { $0.append(exit) } }

        var all: [ProcessWatcher.Exit] { exits.withLock { $0 } }

        /// Waits up to five seconds until `count` ends are reported; returns them.
        func waitFor(_ count: Int) -> [ProcessWatcher.Exit] {
            let deadline = Date().addingTimeInterval(5)
            while all.count < count && Date() < deadline { usleep(5_000) }
            return all
        }
    }

    /// Of a hundred processes watched, the one killed is reported alone, with its pid, its app
    /// and the signal that ended it; the others stay watched until they end too, each reported
    /// once.
    @Test func theProcessThatEndsIsReportedAloneAndTheRestStayWatched() throws {
        let reports = Reports()
        let watcher = ProcessWatcher { reports.append($0) }
        defer { watcher.stop() }
        var processes: [SpawnedProcess] = []
        defer {
            for process in processes { try? process.send(signal: SIGKILL) }
        }
        for index in 0..<100 {
            let process = try ProcessSpawner().spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["60"]))
            processes.append(process)
            watcher.watch(process, app: "app\(index)", launch: index + 1)
        }
        #expect(watcher.count == 100)

        try processes[37].send(signal: SIGKILL)
        let first = reports.waitFor(1)
        usleep(100_000)  // Time for a wrong second report to arrive.
        #expect(reports.all.count == 1)
        #expect(first.first?.pid == processes[37].pid)
        #expect(first.first?.app == "app37")
        #expect(first.first?.launch == 38)
        #expect(first.first?.termination == .signaled(SIGKILL))
        #expect(watcher.count == 99)

        for (index, process) in processes.enumerated() where index != 37 { try process.send(signal: SIGTERM) }
        let all = reports.waitFor(100)
        #expect(all.count == 100)
        #expect(Set(all.map(\.pid)) == Set(processes.map(\.pid)))
        #expect(all.dropFirst().allSatisfy { $0.termination == .signaled(SIGTERM) })
        #expect(watcher.count == 0)
    }

    /// A process watched by pid (as one re-adopted after a restart is) is reported when it ends,
    /// without a status, and one already gone is reported at once.
    @Test func aProcessWatchedByPidIsReportedWithoutAStatus() throws {
        let reports = Reports()
        let watcher = ProcessWatcher { reports.append($0) }
        defer { watcher.stop() }
        let process = try ProcessSpawner().spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["60"]))
        defer {
            try? process.send(signal: SIGKILL)
            _ = try? process.waitAndReap()
            process.close()
        }
        watcher.watch(pid: process.pid, app: "adopted", launch: 4)
        usleep(50_000)
        #expect(reports.all.isEmpty)

        try process.send(signal: SIGKILL)
        let exits = reports.waitFor(1)
        #expect(exits.count == 1)
        #expect(exits.first?.app == "adopted")
        #expect(exits.first?.launch == 4)
        #expect(exits.first?.pid == process.pid)
        #expect(exits.first?.termination == nil)
        #expect(watcher.count == 0)

        _ = try process.waitAndReap()
        watcher.watch(pid: process.pid, app: "gone", launch: 5)
        #expect(reports.waitFor(2).last?.app == "gone")
    }

    /// After `stop()` nothing more is reported, and the processes keep running.
    @Test func stoppingReportsNothingMoreAndLeavesTheProcessesRunning() throws {
        let reports = Reports()
        let watcher = ProcessWatcher { reports.append($0) }
        let process = try ProcessSpawner().spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["60"]))
        let pid = process.pid
        watcher.watch(process, app: "kept", launch: 1)
        watcher.stop()
        let deadline = Date().addingTimeInterval(5)
        while watcher.count > 0 && Date() < deadline { usleep(5_000) }
        #expect(watcher.count == 0)
        #expect(kill(pid, 0) == 0)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        usleep(100_000)
        #expect(reports.all.isEmpty)
    }
}
