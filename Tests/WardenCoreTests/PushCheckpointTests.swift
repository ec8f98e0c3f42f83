import Foundation
import Testing
import WardenCore

/// Push bookkeeping carried across a restart: by the router's own state and by the core's checkpoint.
@Suite struct PushCheckpointTests {
    private let settings = PushSettings(maxPerHour: 1)

    private func admit(_ router: inout PushRouter, id: String, at seconds: Int64) -> PushRouter.Admission {
        router.admit(
            app: "chat", payload: #"{"id":"\#(id)"}"#, id: id, contentAvailable: true, isForceQuit: false,
            now: Instant(sinceOrigin: .seconds(seconds)), settings: settings)
    }

    /// A router rebuilt from its encoded state on a clock shifted by a day still knows the
    /// delivered id, the coalesced push, the taken slot and its tokens.
    @Test func aRouterRebuiltFromItsStateKeepsDedupeSlotsCoalescedPushesAndTokens() throws {
        var router = PushRouter()
        #expect(router.token(for: "chat") == "tok-chat-1")
        router.rotateToken(for: "chat")
        #expect(admit(&router, id: "a", at: 100) == .deliver)
        #expect(admit(&router, id: "b", at: 200) == .coalesce(until: Instant(sinceOrigin: .seconds(3700))))

        let origin = Instant(sinceOrigin: .seconds(250))
        let json = try JSONEncoder().encode(router.state(relativeTo: origin))
        let state = try JSONDecoder().decode(PushRouter.State.self, from: json)
        let shift: Duration = .seconds(86_400)
        var restored = PushRouter(state: state, relativeTo: origin + shift)

        #expect(admit(&restored, id: "a", at: 300 + 86_400) == .duplicate)
        #expect(restored.coalescedPush(app: "chat") == PushRouter.Pending(payload: #"{"id":"b"}"#, id: "b"))
        let later = Instant(sinceOrigin: .seconds(300 + 86_400))
        #expect(restored.wakesInLastHour(app: "chat", now: later) == 1)
        #expect(
            restored.nextSlot(app: "chat", now: later, settings: settings) == Instant(sinceOrigin: .seconds(3700))
                + shift)
        #expect(restored.lookup(token: "tok-chat-1") == .stale(app: "chat"))
        #expect(restored.lookup(token: "tok-chat-2") == .app("chat"))
        #expect(PushRouter(state: router.state).state == router.state)
    }

    /// After a checkpoint and restore, a delivered id is still a duplicate and the coalesced
    /// push is delivered when its slot frees, on the new clock.
    @Test func aRestoredCoreKeepsDedupeAndDeliversTheCoalescedPushInItsSlot() throws {
        let chat = AppPolicy(
            name: "chat", backgroundModes: [.remoteNotification],
            settings: TimingSettings(push: PushSettings(maxPerHour: 1)))
        let policy = Policy(apps: [chat])
        func payload(_ id: String) -> String { #"{"aps":{"content-available":1},"id":"\#(id)"}"# }

        var harness = Harness(policy)
        try harness.send(.push(target: .app("chat"), payload: payload("a"), id: nil), at: 0)
        try harness.send(.completePush(app: "chat", result: .newData), at: 1)
        let second = try harness.send(.push(target: .app("chat"), payload: payload("b"), id: nil), at: 10)
        #expect(second.contains(.reply(.push(.coalesced))))

        let taken = Harness.seconds(20)
        let json = try JSONEncoder().encode(harness.core.checkpoint(at: taken))
        let checkpoint = try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        let shift: Duration = .seconds(7200)
        var restored = Harness(policy)
        restored.core = Lifecycle(policy: policy, checkpoint: checkpoint, at: taken + shift)
        restored.advance(to: 20 + 7200)
        #expect(restored.deadline("chat", .pushSlot) == Harness.seconds(3600) + shift)

        let start = 20 + 7200.0
        let again = try restored.send(.push(target: .app("chat"), payload: payload("a"), id: nil), at: start + 1)
        #expect(again.contains(.reply(.push(.duplicate))))
        restored.advance(to: 3600 + 7200 - 1)
        #expect(Self.pushIDs(restored.messages(to: "chat")).isEmpty)
        restored.advance(to: 3600 + 7200)
        #expect(Self.pushIDs(restored.messages(to: "chat")) == ["b"])
    }

    /// The ids of the push payloads among `messages`.
    static func pushIDs(_ messages: [AppMessage]) -> [String?] {
        messages.compactMap { message -> String?? in
            guard case .pushPayload(_, let id, _) = message else { return nil }
            return id
        }
    }
}
