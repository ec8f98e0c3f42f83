import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenTesting

@testable import WardenRuntime

/// The control API's encoder writes what Foundation's `JSONEncoder` writes with sorted keys and
/// unescaped slashes, byte for byte.
struct SortedJSONEncoderTests {
    private static let foundation: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private func expectSameText(_ value: some Encodable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = String(decoding: try Self.foundation.encode(value), as: UTF8.self)
        let written = String(decoding: try SortedJSONEncoder.encode(value), as: UTF8.self)
        #expect(written == expected, sourceLocation: sourceLocation)
    }

    /// An app list with optionals present and absent, arrays, nested objects and negative
    /// numbers is written as Foundation writes it.
    @Test func appListIsWrittenAsFoundationWritesIt() throws {
        let apps = [
            AppInfo(
                name: "mail", state: .init(rawValue: "background"), status: .init(rawValue: "background"),
                pids: [412, 9], footprintBytes: 96 << 20,
                band: .init(rawValue: "idle-background"), timeRemainingMillis: -5, nextWakeMillis: 1_800_000_000_000,
                openTasks: [TaskInfo(id: 3, name: "sync/inbox"), TaskInfo(id: 4, name: "")],
                heldResources: ["/dev/snd", "gps"], forceQuit: true, hasPreservedState: true),
            AppInfo(name: "maps", state: .init(rawValue: "notRunning"), status: .init(rawValue: "unknown")),
        ]
        try expectSameText(apps)
        try expectSameText([AppInfo]())
    }

    /// Quotes, backslashes, control characters, slashes and non-ASCII text are escaped (or not)
    /// as Foundation does, in values and in dictionary keys, and keys sort by their bytes.
    @Test func stringsAndDictionaryKeysAreEscapedAndSortedAsFoundationDoes() throws {
        let tricky = "a \"quoted\" \\ path/to\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F} é ✓ 🦊"
        let entry = JournalEntry(
            id: 7, app: "mail", wallTimeMillis: 0, kind: "decision", name: tricky,
            properties: ["b": "2", "B": "1", "é": "3", "a/b": tricky, "": "empty", "aa": "4", "a": "5"])
        try expectSameText(entry)
        try expectSameText([entry, entry])
    }

    /// Top-level strings, numbers, booleans, nil, nested arrays and extreme integers are written
    /// as Foundation writes them.
    @Test func scalarsAndNestedArraysAreWrittenAsFoundationWritesThem() throws {
        try expectSameText("top/level")
        try expectSameText(Int64.min)
        try expectSameText(UInt64.max)
        try expectSameText([true, false])
        try expectSameText([[Int32]]([[1, -2], [], [Int32.max]]))
        try expectSameText([String?]([nil, "x"]))
        try expectSameText(["k": [1, 2], "a": []])
        try expectSameText(
            Explanation(app: "mail", state: .init(rawValue: "suspended"), sentences: ["Went home.", "Froze."]))
    }

    /// A number JSON cannot hold is refused with a sentence rather than written.
    @Test func nonFiniteNumberIsRefused() {
        #expect(throws: SortedJSONEncoder.Failure.self) { try SortedJSONEncoder.encode([Double.nan]) }
    }
}

/// The checkpoint saved record by record reads back as what encoding the whole checkpoint
/// writes, after every change, and each save writes only the records that changed.
struct CheckpointEncoderTests {
    static let policy = Policy(
        foregroundSlots: 1,
        apps: ["mail", "maps", "notes"].map { AppPolicy(name: $0, command: "ballast") })

    static func checkpoint(_ core: Lifecycle, at now: Instant, running: [String]) -> WardenCheckpoint {
        WardenCheckpoint(
            lifecycle: core.checkpoint(at: now),
            running: running.enumerated().map { index, app in
                RunningAppRecord(
                    app: app, launch: 1, pid: Int32(100 + index), group: nil, startedWallMillis: 1_800_000_000_000)
            })
    }

    /// Encodes `checkpoint`, saves it in `store` and checks that the store reads back the whole
    /// checkpoint's text; returns what the save wrote.
    @discardableResult
    private func save(
        _ checkpoint: WardenCheckpoint, with encoder: inout CheckpointEncoder, in store: JournalStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CheckpointText {
        let text = try encoder.encode(checkpoint)
        try store.saveCheckpoint(text, wallTimeMillis: 1)
        encoder.saved()
        let whole = String(decoding: try SortedJSONEncoder.encode(checkpoint), as: UTF8.self)
        #expect(try store.checkpoint()?.json == whole, sourceLocation: sourceLocation)
        return text
    }

    /// After an app opens, another goes to background, a running record changes and one ends,
    /// each save writes only the records that changed, and the store reads back the whole text.
    @Test func eachSaveWritesOnlyTheRecordsThatChanged() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        var core = Lifecycle(policy: Self.policy)
        var encoder = CheckpointEncoder()
        var now = Instant(sinceOrigin: .seconds(1))
        _ = try core.handle(.open(app: "mail"), at: now)
        let first = try save(Self.checkpoint(core, at: now, running: ["mail"]), with: &encoder, in: store)
        #expect(first.complete)
        #expect(first.changed.map(\.name) == ["mail", "maps", "notes", "mail"])

        now = Instant(sinceOrigin: .seconds(2))
        _ = try core.handle(.open(app: "maps"), at: now)
        var checkpoint = Self.checkpoint(core, at: now, running: ["mail", "maps"])
        checkpoint.running[0].pid = 4242
        let second = try save(checkpoint, with: &encoder, in: store)
        #expect(!second.complete)
        #expect(
            second.changed.map { "\($0.section.rawValue)/\($0.name)" } == [
                "apps/mail", "apps/maps", "running/mail", "running/maps",
            ])
        #expect(second.changed.contains { $0.json.contains("4242") })
        #expect(second.removed.isEmpty)

        checkpoint = Self.checkpoint(core, at: now, running: ["maps"])
        let third = try save(checkpoint, with: &encoder, in: store)
        #expect(third.removed == [CheckpointText.Removal(section: .running, name: "mail")])
        // `maps` moved to the first place of the running list: written again at its new place.
        #expect(third.changed.map(\.name) == ["maps"])

        let unchanged = try save(checkpoint, with: &encoder, in: store)
        #expect(unchanged.changed.isEmpty && unchanged.removed.isEmpty)
        let saved = try #require(try store.checkpoint())
        let decoded = try JSONDecoder().decode(WardenCheckpoint.self, from: Data(saved.json.utf8))
        #expect(decoded == checkpoint)
    }

    /// A save that failed, and the first save of a new daemon over an earlier one's records,
    /// write every record again and leave none of the earlier ones behind.
    @Test func aSaveAfterAFailureOrARestartWritesEverything() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        var core = Lifecycle(policy: Self.policy)
        let now = Instant(sinceOrigin: .seconds(1))
        _ = try core.handle(.open(app: "mail"), at: now)
        var earlier = CheckpointEncoder()
        try save(Self.checkpoint(core, at: now, running: ["mail", "notes"]), with: &earlier, in: store)

        var encoder = CheckpointEncoder()
        let checkpoint = Self.checkpoint(core, at: now, running: ["mail"])
        _ = try encoder.encode(checkpoint)  // not saved: the journal refused it
        let retried = try save(checkpoint, with: &encoder, in: store)
        #expect(retried.complete)
        #expect(try store.checkpoint()?.json.contains("notes") == true)  // the app's record
        #expect(try store.checkpoint()?.json.contains(#""app":"notes""#) == false)  // its running record
    }

    /// After a save that succeeded, a save the journal refused is not taken for saved: the next
    /// save writes what changed since the one that succeeded, the refused change included even
    /// where the next checkpoint holds the same record as the refused one did.
    @Test func aSaveAfterARefusedOneWritesWhatChangedSinceTheLastThatSucceeded() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        var core = Lifecycle(policy: Self.policy)
        var encoder = CheckpointEncoder()
        _ = try core.handle(.open(app: "mail"), at: Instant(sinceOrigin: .seconds(1)))
        try save(
            Self.checkpoint(core, at: Instant(sinceOrigin: .seconds(1)), running: ["mail"]), with: &encoder, in: store)

        // `maps` opens; the journal refuses the save (nothing of it reaches the store).
        _ = try core.handle(.open(app: "maps"), at: Instant(sinceOrigin: .seconds(2)))
        let refused = try encoder.encode(
            Self.checkpoint(core, at: Instant(sinceOrigin: .seconds(2)), running: ["mail", "maps"]))
        #expect(refused.changed.contains { $0.section == .apps && $0.name == "maps" })

        // The next save, with `maps` as it was in the refused one, writes it all the same.
        let next = try save(
            Self.checkpoint(core, at: Instant(sinceOrigin: .seconds(2)), running: ["mail", "maps"]), with: &encoder,
            in: store)
        #expect(!next.complete)
        #expect(next.changed.contains { $0.section == .apps && $0.name == "maps" })
        #expect(next.changed.contains { $0.section == .running && $0.name == "maps" })
    }

    /// An app the policy no longer names leaves the apps list, and its record leaves the store.
    @Test func anAppRemovedFromThePolicyLeavesTheStore() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        var core = Lifecycle(policy: Self.policy)
        var encoder = CheckpointEncoder()
        let now = Instant(sinceOrigin: .seconds(1))
        try save(Self.checkpoint(core, at: now, running: []), with: &encoder, in: store)

        var smaller = Self.policy
        smaller.apps.removeAll { $0.name == "maps" }
        _ = try core.handle(.policyChanged(smaller), at: now)
        let text = try save(Self.checkpoint(core, at: now, running: []), with: &encoder, in: store)
        #expect(text.removed == [CheckpointText.Removal(section: .apps, name: "maps")])
        #expect(try store.checkpoint()?.json.contains(#""maps""#) == false)
    }

    /// A checkpoint saved whole replaces one saved record by record, and is read as it was written.
    @Test func aWholeCheckpointReplacesTheRecords() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        let journal = WardenMemoryJournal()
        var core = Lifecycle(policy: Self.policy)
        let now = Instant(sinceOrigin: .seconds(1))
        _ = try core.handle(.open(app: "mail"), at: now)
        let checkpoint = Self.checkpoint(core, at: now, running: ["mail"])
        var encoder = CheckpointEncoder()
        let text = try encoder.encode(checkpoint)
        try store.saveCheckpoint(text, wallTimeMillis: 1)
        journal.saveCheckpoint(text, wallTimeMillis: 1)
        let whole = String(decoding: try SortedJSONEncoder.encode(checkpoint), as: UTF8.self)
        #expect(journal.checkpoint()?.json == whole)
        try store.saveCheckpoint(#"{"v":2}"#, wallTimeMillis: 2)
        try journal.saveCheckpoint(#"{"v":2}"#, wallTimeMillis: 2)
        #expect(try store.checkpoint()?.json == #"{"v":2}"#)
        #expect(journal.checkpoint()?.json == #"{"v":2}"#)
        try store.saveCheckpoint(text, wallTimeMillis: 3)
        #expect(try store.checkpoint()?.json == whole)
    }
}

/// The app list's entries kept encoded between requests write what encoding the list writes.
struct KeptEncodingsTests {
    /// A changed entry is encoded again, a removed one is forgotten, a new one is added.
    @Test func keptEntriesFollowEveryChangeOfTheList() throws {
        let shared = KeptEncodings<AppInfo>.Shared()
        var apps = [
            AppInfo(name: "mail", state: .init(rawValue: "active"), status: .init(rawValue: "foreground")),
            AppInfo(name: "maps", state: .init(rawValue: "suspended"), status: .init(rawValue: "background")),
        ]
        func written() throws -> [UInt8] { try SortedJSONEncoder.encode(shared.fragments(of: apps, key: { $0.name })) }
        #expect(try written() == SortedJSONEncoder.encode(apps))
        apps[0].state = .init(rawValue: "background")
        apps[0].footprintBytes = 96 << 20
        apps.remove(at: 1)
        apps.append(AppInfo(name: "notes", state: .init(rawValue: "notRunning"), status: .init(rawValue: "unknown")))
        #expect(try written() == SortedJSONEncoder.encode(apps))
        #expect(String(decoding: try written(), as: UTF8.self).contains("100663296"))
        // In another order, each entry is still its own app's.
        apps.reverse()
        apps[1].footprintBytes = 32 << 20
        #expect(try written() == SortedJSONEncoder.encode(apps))
        #expect(try written() == SortedJSONEncoder.encode(apps))
    }

    /// The time remaining counts down between requests: it is written into the kept entry, which
    /// is not encoded again, and the list reads as a list encoded afresh.
    @Test func aCountdownIsWrittenIntoTheKeptEntry() throws {
        let shared = KeptEncodings<AppInfo>.Shared(
            countdown: .init(member: \.timeRemainingMillis, key: "timeRemainingMillis"))
        var apps = [
            AppInfo(
                name: "mail", state: .init(rawValue: "suspended"), status: .init(rawValue: "background"),
                footprintBytes: 64 << 20, timeRemainingMillis: 540_000, nextWakeMillis: 1_700_000_000_000,
                openTasks: [TaskInfo(id: 1, name: #""timeRemainingMillis":-9223372036854775808"#)]),
            AppInfo(name: "maps", state: .init(rawValue: "active"), status: .init(rawValue: "foreground")),
        ]
        func written() throws -> [UInt8] { try SortedJSONEncoder.encode(shared.fragments(of: apps, key: { $0.name })) }
        #expect(try written() == SortedJSONEncoder.encode(apps))
        #expect(shared.encodings == 2)
        for remaining: Int64 in [539_000, 0, 9_999_999_999] {
            apps[0].timeRemainingMillis = remaining
            #expect(try written() == SortedJSONEncoder.encode(apps))
        }
        #expect(shared.encodings == 2)
        // Without a countdown, and with one again: encoded, then kept again.
        apps[0].timeRemainingMillis = nil
        #expect(try written() == SortedJSONEncoder.encode(apps))
        apps[0].timeRemainingMillis = 12
        #expect(try written() == SortedJSONEncoder.encode(apps))
        #expect(shared.encodings == 4)
        apps[0].footprintBytes = 32 << 20
        #expect(try written() == SortedJSONEncoder.encode(apps))
        #expect(shared.encodings == 5)
    }

    /// A countdown under a key the encoding does not have is encoded with its value each time:
    /// never a kept entry with a stale countdown.
    @Test func aCountdownThatCannotBeFoundIsEncodedEachTime() throws {
        let shared = KeptEncodings<AppInfo>.Shared(countdown: .init(member: \.timeRemainingMillis, key: "elsewhere"))
        var apps = [
            AppInfo(
                name: "mail", state: .init(rawValue: "suspended"), status: .init(rawValue: "background"),
                timeRemainingMillis: 540_000)
        ]
        for remaining: Int64 in [540_000, 539_000, 539_000] {
            apps[0].timeRemainingMillis = remaining
            #expect(
                try SortedJSONEncoder.encode(shared.fragments(of: apps, key: { $0.name }))
                    == SortedJSONEncoder.encode(apps))
        }
        #expect(shared.encodings == 3)
    }

    /// The control server keeps its app list's entries while their time remaining counts down.
    @Test func theControlServerKeepsEntriesWhoseTimeCountsDown() throws {
        let server = ControlServer(
            control: ControlServerDouble(apps: []), socketPath: "/nonexistent/control.sock", adminGroup: nil)
        var apps = [
            AppInfo(
                name: "mail", state: .init(rawValue: "suspended"), status: .init(rawValue: "background"),
                timeRemainingMillis: 540_000)
        ]
        for remaining: Int64 in [540_000, 539_000] {
            apps[0].timeRemainingMillis = remaining
            let fragments = try server.appListEncodings.fragments(of: apps, key: { $0.name })
            #expect(try SortedJSONEncoder.encode(fragments) == SortedJSONEncoder.encode(apps))
        }
        #expect(server.appListEncodings.encodings == 1)
    }
}
