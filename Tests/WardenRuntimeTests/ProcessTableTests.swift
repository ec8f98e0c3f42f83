import Testing

@testable import WardenRuntime

@Suite struct ProcessTableTests {
    static func process(_ app: String, watched: Bool) -> RunningProcess {
        RunningProcess(
            record: RunningAppRecord(app: app, launch: 1, pid: 100, group: nil, startedWallMillis: 0),
            isWatched: watched)
    }

    /// Whether every running process is watched follows each change of the running apps: an
    /// unwatched one added, replaced by a watched one, or removed.
    @Test func everyProcessWatchedFollowsTheRunningApps() {
        func watched(_ table: inout ProcessTable) -> Bool { table.everyProcessWatched() }
        var table = ProcessTable()
        #expect(watched(&table))
        table.running["mail"] = Self.process("mail", watched: true)
        #expect(watched(&table))
        table.running["maps"] = Self.process("maps", watched: false)
        #expect(!watched(&table))
        #expect(!watched(&table))
        table.running["maps"] = Self.process("maps", watched: true)
        #expect(watched(&table))
        table.running["notes"] = Self.process("notes", watched: false)
        #expect(!watched(&table))
        table.running["notes"] = nil
        #expect(watched(&table))
        table.running["notes"] = Self.process("notes", watched: false)
        #expect(!watched(&table))
        table.running.removeAll()
        #expect(watched(&table))
    }
}
