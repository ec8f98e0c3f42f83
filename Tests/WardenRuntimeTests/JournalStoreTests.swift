import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenSQLite

@testable import WardenRuntime

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct JournalTestDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "appwarden-journal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    var databasePath: String { path + "/appwarden.sqlite" }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

@Suite struct JournalStoreTests {
    private func record(_ app: String, _ kind: JournalRecord.Kind) -> JournalRecord {
        JournalRecord(app: app, time: .zero, kind: kind)
    }

    /// An event's entries, written together, keep their order and each its own wall time; an
    /// empty batch writes nothing.
    @Test func aBatchKeepsItsOrderAndEachEntrysTime() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        #expect(try store.append([NewJournalEntry]()).isEmpty)
        let batch = [
            NewJournalEntry(app: "mail", event: AppEvent(.decision("first")), wallTimeMillis: 1_000),
            NewJournalEntry(app: "maps", event: AppEvent(.decision("second")), wallTimeMillis: 1_005),
            NewJournalEntry(app: "mail", event: AppEvent(.decision("third")), wallTimeMillis: 1_009),
        ]
        let stored = try store.append(batch)
        #expect(stored.map(\.id) == [1, 2, 3])
        let read = try store.entries(JournalQuery())
        #expect(read.map(\.app) == ["mail", "maps", "mail"])
        #expect(read.map(\.wallTimeMillis) == [1_000, 1_005, 1_009])
        #expect(read.map(\.event) == batch.map(\.event))
    }

    /// Appended records come back with increasing ids, their mapped kinds, names and properties.
    @Test func appendedRecordsComeBackWithIdsAndProperties() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let stored = try store.append(
            [
                record("mail", .analytics(.appStart(cold: true, afterPassive: false))),
                record("mail", .stateChange(from: .active, to: .background, because: "home")),
            ], wallTimeMillis: 1_000)
        #expect(stored.count == 2)
        #expect(stored[0].id < stored[1].id)
        let read = try store.entries(JournalQuery())
        #expect(read == stored)
        #expect(read[0].name == "$AppStart")
        #expect(read[0].properties == ["cold": "true", "afterPassive": "false"])
        #expect(read[1].kind == "state")
        #expect(read[1].name == "background")
        #expect(read[1].properties["because"] == "home")
        #expect(read[1].wallTimeMillis == 1_000)
    }

    /// Queries filter by app, by id, by wall time and stop at the limit, oldest first.
    @Test func queriesFilterByAppIdTimeAndLimit() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        var ids: [Int64] = []
        for index in 0..<10 {
            let app = index.isMultiple(of: 2) ? "mail" : "maps"
            ids.append(
                try store.append(
                    app: app, kind: "decision", name: "decision", properties: ["text": "step \(index)"],
                    wallTimeMillis: Int64(100 * index)
                ).id)
        }
        let mail = try store.entries(JournalQuery(app: "mail"))
        #expect(mail.map(\.properties["text"]) == ["step 0", "step 2", "step 4", "step 6", "step 8"])
        let afterFourth = try store.entries(JournalQuery(sinceID: ids[3]))
        #expect(afterFourth.map(\.id) == Array(ids[4...]))
        let fromTime = try store.entries(JournalQuery(sinceMillis: 700))
        #expect(fromTime.map(\.wallTimeMillis) == [700, 800, 900])
        let limited = try store.entries(JournalQuery(app: "maps", sinceID: ids[0], limit: 2))
        #expect(limited.map(\.properties["text"]) == ["step 1", "step 3"])
        #expect(try store.lastEntryID() == ids[9])
    }

    /// An entry stamped earlier than the one before it is stored with that one's time, so ids
    /// increase with time.
    @Test func anEntryStampedEarlierThanThePreviousOneTakesThePreviousTime() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let message = try store.append(
            app: "mail", kind: "message", name: "saveState", properties: [:], wallTimeMillis: 100)
        let core = try store.append(
            [record("mail", .analytics(.appEnd(foregroundDuration: .seconds(5))))], wallTimeMillis: 98)
        let later = try store.append(
            app: "mail", kind: "status", name: "background", properties: [:], wallTimeMillis: 120)
        #expect(message.wallTimeMillis == 100)
        #expect(core.map(\.wallTimeMillis) == [100])
        #expect(later.wallTimeMillis == 120)
        #expect(try store.entries(JournalQuery()).map(\.wallTimeMillis) == [100, 100, 120])
    }

    /// The checkpoint is absent at first, then the last one saved.
    @Test func checkpointIsTheLastSaved() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        #expect(try store.checkpoint() == nil)
        try store.saveCheckpoint(#"{"v":1}"#, wallTimeMillis: 5)
        try store.saveCheckpoint(#"{"v":2}"#, wallTimeMillis: 9)
        let checkpoint = try #require(try store.checkpoint())
        #expect(checkpoint.json == #"{"v":2}"#)
        #expect(checkpoint.wallTimeMillis == 9)
    }

    /// Closing and reopening the file keeps every table, and new ids continue after the old ones.
    @Test func reopeningKeepsEverything() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let first = try JournalStore(path: directory.databasePath)
        let written = try first.append(
            [record("mail", .analytics(.appTerminated(reason: .memoryPressure)))], wallTimeMillis: 42)
        try first.saveCheckpoint("{}", wallTimeMillis: 3)
        try first.close()

        let second = try JournalStore(path: directory.databasePath)
        #expect(try second.entries(JournalQuery()) == written)
        #expect(try second.checkpoint()?.wallTimeMillis == 3)
        let next = try second.append(
            app: "mail", kind: "status", name: "terminating", properties: [:], wallTimeMillis: 50)
        #expect(next.id > written[0].id)
    }

    /// The journal refuses to change or delete a stored record.
    @Test func journalRefusesUpdatesAndDeletes() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let entry = try store.append(
            app: "mail", kind: "status", name: "foreground", properties: [:], wallTimeMillis: 1)
        #expect(throws: (any Error).self) {
            try store.database.write { db in
                try db.execute("UPDATE journal SET name = 'background' WHERE id = ?", [.integer(entry.id)])
            }
        }
        #expect(throws: (any Error).self) {
            try store.database.write { db in try db.execute("DELETE FROM journal") }
        }
        #expect(try store.entries(JournalQuery()) == [entry])
    }

    /// Ids keep increasing after the newest row is gone from view, because they are never reused.
    @Test func idsStrictlyIncreaseAcrossBatches() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        var last: Int64 = 0
        for batch in 0..<5 {
            let entries = try store.append(
                Array(repeating: record("mail", .decision("batch \(batch)")), count: 3), wallTimeMillis: Int64(batch))
            for entry in entries {
                #expect(entry.id > last)
                last = entry.id
            }
        }
        #expect(try store.entries(JournalQuery()).count == 15)
    }

    /// Appends from many tasks at once all land, with distinct ids.
    @Test func concurrentAppendsLoseNothing() async throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var ids: [Int64] = []
                    for step in 0..<25 {
                        ids.append(
                            try store.append(
                                app: "app\(worker)", kind: "decision", name: "decision",
                                properties: ["step": String(step)], wallTimeMillis: Int64(step)
                            ).id)
                    }
                    return ids
                }
            }
            var all: [Int64] = []
            for try await ids in group {
                #expect(ids == ids.sorted())
                all += ids
            }
            return all
        }
        #expect(Set(ids).count == 200)
        let stored = try store.entries(JournalQuery(limit: 1000))
        #expect(stored.count == 200)
        #expect(Set(stored.map(\.id)) == Set(ids))
        #expect(try store.entries(JournalQuery(app: "app3")).map(\.properties["step"]) == (0..<25).map(String.init))
    }

    /// A path in a directory that does not exist gives an error that names the path.
    @Test func unopenableFileNamesThePath() throws {
        let path = "/nonexistent-appwarden-dir/\(UUID().uuidString)/appwarden.sqlite"
        let error = #expect(throws: JournalStoreError.self) { try JournalStore(path: path) }
        #expect(error?.description.contains(path) == true)
    }
}
