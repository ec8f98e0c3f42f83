import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenRuntime

@Suite struct AppEventTests {
    private func fields(_ kind: JournalRecord.Kind) -> AppEvent.Fields {
        AppEvent(kind).fields
    }

    /// Analytics records map to their event names with camelCase properties as strings; a cold
    /// launch after a kill names the kill's reason.
    @Test func analyticsRecordsCarryTheirProperties() {
        #expect(
            fields(.analytics(.appStart(cold: false, afterPassive: true)))
                == .init(kind: "analytics", name: "$AppStart", properties: ["cold": "false", "afterPassive": "true"]))
        #expect(
            fields(.analytics(.appStart(cold: true, afterPassive: false, afterKill: .memoryPressure)))
                == .init(
                    kind: "analytics", name: "$AppStart",
                    properties: ["cold": "true", "afterPassive": "false", "afterKill": "memoryPressure"]))
        #expect(
            fields(.analytics(.appEnd(foregroundDuration: .milliseconds(2_500))))
                == .init(kind: "analytics", name: "$AppEnd", properties: ["durationMillis": "2500"]))
        #expect(
            fields(.analytics(.appStartPassively(reason: .push)))
                == .init(kind: "analytics", name: "$AppStartPassively", properties: ["reason": "push"]))
        #expect(
            fields(.analytics(.appTerminated(reason: .fetchTimeout)))
                == .init(kind: "analytics", name: "$AppTerminated", properties: ["reason": "fetchTimeout"]))
    }

    /// State changes are named after the new state; decisions keep their text.
    @Test func stateChangesAndDecisionsMapToTheirKinds() {
        #expect(
            fields(.stateChange(from: .background, to: .suspended, because: "grace ended"))
                == .init(
                    kind: "state", name: "suspended",
                    properties: ["from": "background", "to": "suspended", "because": "grace ended"]))
        #expect(
            fields(.decision("fetch skipped"))
                == .init(kind: "decision", name: "decision", properties: ["text": "fetch skipped"]))
    }

    /// A daemon record with no app to list leaves the list out (no empty `readopted=`) and
    /// reads back with an empty list; a list with apps is written comma-separated.
    @Test func emptyAppListsAreLeftOutOfDaemonRecords() {
        let started = AppEvent.system(.daemonStarted(version: "1.0", readopted: []))
        #expect(started.fields.properties == ["version": "1.0"])
        #expect(AppEvent(kind: "system", name: "daemonStarted", properties: started.fields.properties) == started)
        let stopped = AppEvent.system(.daemonStopped(leftRunning: ["mail", "maps"]))
        #expect(stopped.fields.properties == ["leftRunning": "mail,maps"])
        let reloaded = AppEvent.system(.policyReloaded(added: ["chat"], removed: [], changed: []))
        #expect(reloaded.fields.properties == ["added": "chat"])
        #expect(AppEvent(kind: "system", name: "policyReloaded", properties: ["added": "chat"]) == reloaded)
    }

    /// Messages to apps map to kind "message" named after the message, with their details.
    @Test func messagesMapToMessageEntries() {
        #expect(
            AppEvent.message(.expirationWarning(taskIDs: [1, 3], remaining: .seconds(5))).fields
                == .init(
                    kind: "message", name: "expirationWarning",
                    properties: ["taskIDs": "1,3", "remainingMillis": "5000"]))
        #expect(
            AppEvent.message(.pushPayload(payload: "{}", id: "n7", window: .seconds(30))).fields
                == .init(
                    kind: "message", name: "pushPayload",
                    properties: ["payload": "{}", "id": "n7", "windowMillis": "30000"]))
        #expect(AppEvent.message(.pushPayload(payload: "{}", id: nil, window: .seconds(30))).properties["id"] == nil)
        #expect(AppEvent.message(.memoryWarning).name == "memoryWarning")
        #expect(AppEvent.status(.terminating).fields == .init(kind: "status", name: "terminating"))
    }

    /// Every kind of event reads back from its fields as the same event.
    @Test func everyEventReadsBackFromItsFields() {
        let report = MemoryKillReport(
            level: .critical,
            figures: MemoryFigures(
                availableBytes: 10, totalBytes: 100, warningEnterBytes: 20, warningExitBytes: 25,
                criticalEnterBytes: 15,
                criticalExitBytes: 18),
            band: .suspended, footprint: 400,
            others: [PassedOver(app: "maps", band: .foreground, footprint: 900, reason: "foreground")])
        var crowded = report
        crowded.unlisted = 980
        crowded.swapped = 300
        crowded.tookRoom = MemoryKillReport.TookRoom(growth: 180, room: 200, madeBy: "b")
        let events: [AppEvent] = [
            .memoryKill(crowded),
            .analytics(.appStart(cold: true, afterPassive: false)),
            .analytics(.appStart(cold: true, afterPassive: false, afterKill: .kernelOOMKill)),
            .analytics(.appEnd(foregroundDuration: .milliseconds(1234))),
            .analytics(.appTerminated(reason: .memoryPressure)),
            .stateChange(from: .active, to: .background, because: "home"),
            .decision("x"), .status(.background),
            .message(.stateChanged(.suspended)),
            .message(.expirationWarning(taskIDs: [4, 5], remaining: .seconds(5))),
            .message(.fetchStart(window: .seconds(30))),
            .message(.pushPayload(payload: #"{"a":1}"#, id: "p", window: .seconds(30))),
            .message(.activitiesEnded(activityIDs: [1, 2], after: .seconds(3600))),
            .message(.saveState), .memoryKill(report),
            .system(.pressureChanged(from: .normal, to: .critical, figures: report.figures)),
            .system(.pressureChanged(from: .critical, to: .warning, figures: nil)),
            .system(.screenLocked), .system(.screenUnlocked),
            .system(.policyReloaded(added: ["new"], removed: [], changed: ["mail", "maps"])),
            .system(.daemonStarted(version: "0.1.0", readopted: ["mail"])),
            .system(.daemonStopped(leftRunning: [])),
        ]
        for event in events {
            let fields = event.fields
            #expect(AppEvent(kind: fields.kind, name: fields.name, properties: fields.properties) == event)
        }
    }

    /// Entries written by an older daemon, with snake_case property keys, read as typed events.
    @Test func olderEntriesWithSnakeCaseKeysStillRead() {
        #expect(
            AppEvent(kind: "analytics", name: "$AppStart", properties: ["cold": "true", "after_passive": "true"])
                == .analytics(.appStart(cold: true, afterPassive: true)))
        #expect(
            AppEvent(kind: "message", name: "expirationWarning", properties: ["task_ids": "2", "remaining_ms": "5000"])
                == .message(.expirationWarning(taskIDs: [2], remaining: .seconds(5))))
        #expect(
            AppEvent(kind: "analytics", name: "$AppEnd", properties: ["duration_ms": "70"])
                == .analytics(.appEnd(foregroundDuration: .milliseconds(70))))
    }

    /// The figures of an older daemon, one threshold per level (`warningBytes`, `criticalBytes`),
    /// read as enter thresholds without exit thresholds.
    @Test func olderFiguresWithOneThresholdPerLevelStillRead() {
        let properties = [
            "from": "normal", "to": "warning", "availableBytes": "10", "totalBytes": "100", "warningBytes": "20",
            "criticalBytes": "5",
        ]
        #expect(
            AppEvent(kind: "system", name: "pressureChanged", properties: properties)
                == .system(
                    .pressureChanged(
                        from: .normal, to: .warning,
                        figures: MemoryFigures(
                            availableBytes: 10, totalBytes: 100, warningEnterBytes: 20, warningExitBytes: nil,
                            criticalEnterBytes: 5, criticalExitBytes: nil))))
    }

    /// A record this version does not know is kept as it was, and written back unchanged.
    @Test func unknownRecordsAreKeptAsStored() throws {
        let event = AppEvent(kind: "hologram", name: "beamed", properties: ["to": "mars"])
        #expect(event == .unknown(kind: "hologram", name: "beamed", properties: ["to": "mars"]))
        #expect(event.fields == .init(kind: "hologram", name: "beamed", properties: ["to": "mars"]))
        let damaged = AppEvent(kind: "analytics", name: "$AppTerminated", properties: ["reason": "cosmicRay"])
        #expect(damaged == .unknown(kind: "analytics", name: "$AppTerminated", properties: ["reason": "cosmicRay"]))
        let json = #"{"id":3,"app":"mail","wallTimeMillis":9,"kind":"hologram","name":"beamed","properties":{}}"#
        let entry = try JSONDecoder().decode(JournalEntry.self, from: Data(json.utf8))
        #expect(entry.kind == "hologram" && entry.name == "beamed")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(
            String(decoding: try encoder.encode(entry), as: UTF8.self)
                == #"{"app":"mail","id":3,"kind":"hologram","name":"beamed","properties":{},"wallTimeMillis":9}"#)
    }

    /// A journal file written by an older daemon (snake_case keys, an unknown kind) opens and reads.
    @Test func olderJournalRowsReadAfterAnUpgrade() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appwarden-upgrade-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        do {
            let store = try JournalStore(path: path)
            try store.append(
                app: "mail", kind: "analytics", name: "$AppStart",
                properties: ["cold": "true", "after_passive": "false"],
                wallTimeMillis: 1)
            try store.append(app: "mail", kind: "telemetry", name: "ping", properties: ["n": "1"], wallTimeMillis: 2)
            try store.close()
        }
        let reopened = try JournalStore(path: path)
        defer { try? reopened.close() }
        let entries = try reopened.entries(JournalQuery(app: "mail"))
        #expect(
            entries.map(\.event) == [
                .analytics(.appStart(cold: true, afterPassive: false)),
                .unknown(kind: "telemetry", name: "ping", properties: ["n": "1"]),
            ])
    }

    /// A mapped entry keeps the record's app and the given id and time.
    @Test func entryKeepsAppIdAndTime() {
        let entry = JournalStore.entry(
            JournalRecord(app: "maps", time: .zero, kind: .decision("x")), id: 12, wallTimeMillis: 99)
        #expect(entry == JournalEntry(id: 12, app: "maps", wallTimeMillis: 99, event: .decision("x")))
    }
}

private typealias PassedOver = MemoryKillReport.PassedOver
