import Testing
import WardenAPI
import WardenCore
import WardenRuntime

@Suite struct JournalStoreMappingTests {
    private func content(_ kind: JournalRecord.Kind) -> JournalStore.EntryContent {
        JournalStore.content(of: JournalRecord(app: "mail", time: .zero, kind: kind))
    }

    /// Analytics records map to their event names with their properties as strings.
    @Test func analyticsRecordsCarryTheirProperties() {
        #expect(
            content(.analytics(.appStart(cold: false, afterPassive: true)))
                == .init(kind: "analytics", name: "$AppStart", properties: ["cold": "false", "after_passive": "true"]))
        #expect(
            content(.analytics(.appEnd(foregroundDuration: .milliseconds(2_500))))
                == .init(kind: "analytics", name: "$AppEnd", properties: ["duration_ms": "2500"]))
        #expect(
            content(.analytics(.appStartPassively(reason: .push)))
                == .init(kind: "analytics", name: "$AppStartPassively", properties: ["reason": "push"]))
        #expect(
            content(.analytics(.appTerminated(reason: .fetchTimeout)))
                == .init(kind: "analytics", name: "$AppTerminated", properties: ["reason": "fetchTimeout"]))
    }

    /// State changes are named after the new state; decisions keep their text.
    @Test func stateChangesAndDecisionsMapToTheirKinds() {
        #expect(
            content(.stateChange(from: .background, to: .suspended, because: "grace ended"))
                == .init(
                    kind: "state", name: "suspended",
                    properties: ["from": "background", "to": "suspended", "because": "grace ended"]))
        #expect(
            content(.decision("fetch skipped"))
                == .init(kind: "decision", name: "decision", properties: ["text": "fetch skipped"]))
    }

    /// Messages to apps map to kind "message" named after the message, with their details.
    @Test func messagesMapToMessageEntries() {
        #expect(
            JournalStore.content(of: AppMessage.expirationWarning(taskIDs: [1, 3], remaining: .seconds(5)))
                == .init(
                    kind: "message", name: "expirationWarning", properties: ["task_ids": "1,3", "remaining_ms": "5000"])
        )
        #expect(
            JournalStore.content(of: AppMessage.pushPayload(payload: "{}", id: "n7", window: .seconds(30)))
                == .init(
                    kind: "message", name: "pushPayload",
                    properties: ["payload": "{}", "id": "n7", "window_ms": "30000"]))
        #expect(
            JournalStore.content(of: AppMessage.pushPayload(payload: "{}", id: nil, window: .seconds(30))).properties[
                "id"] == nil)
        #expect(
            JournalStore.content(of: AppMessage.fetchStart(window: .seconds(30)))
                == .init(kind: "message", name: "fetchStart", properties: ["window_ms": "30000"]))
        #expect(
            JournalStore.content(of: AppMessage.stateChanged(.background))
                == .init(kind: "message", name: "stateChanged", properties: ["state": "background"]))
        #expect(JournalStore.content(of: AppMessage.memoryWarning).name == "memoryWarning")
        #expect(JournalStore.content(of: AppMessage.saveState).name == "saveState")
        #expect(JournalStore.content(of: AppStatus.terminating) == .init(kind: "status", name: "terminating"))
    }

    /// A mapped entry keeps the record's app and the given id and time.
    @Test func entryKeepsAppIdAndTime() {
        let entry = JournalStore.entry(
            JournalRecord(app: "maps", time: .zero, kind: .decision("x")), id: 12, wallTimeMillis: 99)
        #expect(
            entry
                == JournalEntry(
                    id: 12, app: "maps", wallTimeMillis: 99, kind: "decision", name: "decision",
                    properties: ["text": "x"]))
    }
}
