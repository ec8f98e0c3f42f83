import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenSQLite

@testable import WardenRuntime

/// Pruning the journal by age and by count on a real SQLite file.
@Suite struct JournalRetentionTests {
    private static let day: Int64 = 86_400_000

    /// Appends `count` status entries for `app` at `wallTimeMillis`, returning them.
    private func fill(
        _ store: JournalStore, app: String, count: Int, at wallTimeMillis: Int64
    ) throws -> [JournalEntry] {
        try (0..<count).map { index in
            try store.append(
                app: app, kind: "status", name: "entry \(index)", properties: [:], wallTimeMillis: wallTimeMillis)
        }
    }

    /// Entries older than `keep` go, in several batches; the recent ones and the checkpoint
    /// stay; and ids appended after the prune keep increasing past every id seen before.
    @Test func oldEntriesGoAndRecentOnesAndTheCheckpointStay() async throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let now: Int64 = 100 * Self.day
        let old = try fill(store, app: "mail", count: 2_500, at: now - 40 * Self.day)
        let recent = try fill(store, app: "maps", count: 30, at: now - 2 * Self.day)
        try store.saveCheckpoint("{\"apps\":[]}", wallTimeMillis: now - 50 * Self.day)
        var batches = 0
        let deleted = try await store.prune(
            JournalRetention(keep: .seconds(30 * 86_400)), nowMillis: now, batchSize: 1000, between: { batches += 1 })
        #expect(deleted == old.count)
        #expect(batches == 2, "2,500 rows in batches of 1,000 take three batches, with a pause between each")
        let left = try store.entries(JournalQuery(limit: 10_000))
        #expect(left == recent)
        #expect(try store.checkpoint()?.json == "{\"apps\":[]}")
        let next = try store.append(
            app: "mail", kind: "status", name: "after", properties: [:], wallTimeMillis: now)
        #expect(next.id > recent.last!.id)
        #expect(try store.lastEntryID() == next.id)
    }

    /// `max_entries` keeps the newest N; a journal within both bounds loses nothing.
    @Test func maxEntriesKeepsTheNewest() async throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let now: Int64 = 100 * Self.day
        let entries = try fill(store, app: "mail", count: 50, at: now)
        let retention = JournalRetention(keep: .seconds(30 * 86_400), maxEntries: 20)
        #expect(try await store.prune(retention, nowMillis: now, batchSize: 7) == 30)
        #expect(try store.entries(JournalQuery()) == Array(entries.suffix(20)))
        #expect(try await store.prune(retention, nowMillis: now) == 0)
        #expect(try store.entries(JournalQuery()) == Array(entries.suffix(20)))
    }

    /// Even when every entry is too old the newest stays, and the schema refuses to delete it,
    /// so the next id is still higher than every id handed out.
    @Test func theNewestEntryAlwaysStays() async throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let entries = try fill(store, app: "mail", count: 5, at: 0)
        let deleted = try await store.prune(JournalRetention(keep: .seconds(60)), nowMillis: 10 * Self.day)
        #expect(deleted == 4)
        #expect(try store.entries(JournalQuery()) == [entries.last!])
        #expect(throws: (any Error).self) {
            try store.database.write { db in try db.execute("DELETE FROM journal") }
        }
        let next = try store.append(app: "mail", kind: "status", name: "after", properties: [:], wallTimeMillis: 1)
        #expect(next.id == entries.last!.id + 1)
    }
}
