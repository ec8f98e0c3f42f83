import Foundation
import Testing
import WardenCore

/// Device tokens: unguessable from the system source, unique per install, rotated on reset,
/// kept by the checkpoint.
@Suite struct DeviceTokenTests {
    static let policy = Policy(apps: [AppPolicy(name: "chat", backgroundModes: [.remoteNotification])])
    static let wake = #"{"aps":{"content-available":1}}"#

    static func token(_ core: inout Lifecycle, at seconds: Int64) throws -> String {
        let out = try core.handle(.registerPush(app: "chat"), at: Instant(sinceOrigin: .seconds(seconds)))
        guard case .reply(.deviceToken(let token))? = out.last else {
            Issue.record("no device token in \(out)")
            return ""
        }
        return token
    }

    /// The system source gives 128 bits as 32 hexadecimal digits, different every time and
    /// unrelated to the app's name.
    @Test func systemTokensAre128RandomBitsInHex() {
        let tokens = (0..<64).map { DeviceTokenSource.systemRandom.make("chat", $0 + 1) }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(token.count == 32)
            #expect(token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(!token.contains("chat"))
        }
    }

    /// With the system source, reset rotates the token, the old one is refused as unregistered,
    /// and `deviceToken(of:)` names the current one.
    @Test func resetRotatesASystemTokenAndRefusesTheStaleOne() throws {
        var core = Lifecycle(policy: Self.policy, tokenSource: .systemRandom)
        #expect(core.deviceToken(of: "chat") == nil)
        let old = try Self.token(&core, at: 0)
        #expect(old.count == 32)
        #expect(core.deviceToken(of: "chat") == old)
        #expect(try Self.token(&core, at: 1) == old)
        _ = try core.handle(.reset(app: "chat"), at: Instant(sinceOrigin: .seconds(2)))
        let new = try #require(core.deviceToken(of: "chat"))
        #expect(new != old)
        #expect(core.deviceTokenOwner(old) == .stale(app: "chat"))
        let error = #expect(throws: LifecycleError.self) {
            _ = try core.handle(
                .push(target: .token(old), payload: Self.wake, id: nil), at: Instant(sinceOrigin: .seconds(3)))
        }
        #expect(error?.code == .unregistered)
        let out = try core.handle(
            .push(target: .token(new), payload: Self.wake, id: nil), at: Instant(sinceOrigin: .seconds(4)))
        #expect(out.contains(.reply(.push(.delivered))))
    }

    /// A source that repeats itself still never hands out a token twice.
    @Test func aRepeatedTokenIsNeverHandedOutTwice() throws {
        var core = Lifecycle(policy: Self.policy, tokenSource: DeviceTokenSource { _, _ in "same" })
        let first = try Self.token(&core, at: 0)
        _ = try core.handle(.reset(app: "chat"), at: Instant(sinceOrigin: .seconds(1)))
        let second = try #require(core.deviceToken(of: "chat"))
        #expect(first == "same")
        #expect(second != first)
    }

    /// Tokens persist in the core's checkpoint: after a restore the current token still
    /// addresses the app, the stale one is still refused, and a new rotation gives a fresh one.
    @Test func theCheckpointKeepsCurrentAndStaleTokens() throws {
        var core = Lifecycle(policy: Self.policy, tokenSource: .systemRandom)
        let stale = try Self.token(&core, at: 0)
        _ = try core.handle(.reset(app: "chat"), at: Instant(sinceOrigin: .seconds(1)))
        let current = try #require(core.deviceToken(of: "chat"))
        let json = try JSONEncoder().encode(core.checkpoint(at: Instant(sinceOrigin: .seconds(2))))
        let checkpoint = try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        var restored = Lifecycle(policy: Self.policy, checkpoint: checkpoint, at: .zero, tokenSource: .systemRandom)
        #expect(restored.deviceToken(of: "chat") == current)
        #expect(restored.deviceTokenOwner(current) == .app("chat"))
        #expect(restored.deviceTokenOwner(stale) == .stale(app: "chat"))
        _ = try restored.handle(.reset(app: "chat"), at: Instant(sinceOrigin: .seconds(3)))
        let rotated = try #require(restored.deviceToken(of: "chat"))
        #expect(rotated != current && rotated != stale)
    }

    /// The default source stays deterministic, so scenarios can name tokens.
    @Test func theDefaultSourceIsDeterministic() throws {
        var core = Lifecycle(policy: Self.policy)
        #expect(try Self.token(&core, at: 0) == "tok-chat-1")
        _ = try core.handle(.reset(app: "chat"), at: Instant(sinceOrigin: .seconds(1)))
        #expect(core.deviceToken(of: "chat") == "tok-chat-2")
    }
}

/// The wake block a system termination leaves survives a checkpoint.
@Suite struct WakeBlockCheckpointTests {
    /// A restored core still keeps a push for the next launch of a system-terminated app.
    @Test func aRestoredCoreStillBlocksWakesAfterASystemTermination() throws {
        var core = Lifecycle(policy: DeviceTokenTests.policy)
        _ = try core.handle(.open(app: "chat"), at: .zero)
        _ = try core.handle(.home, at: Instant(sinceOrigin: .seconds(1)))
        _ = try core.handle(.pressure(.critical), at: Instant(sinceOrigin: .seconds(2)))
        #expect(core.state(of: "chat") == .notRunning)
        let json = try JSONEncoder().encode(core.checkpoint(at: Instant(sinceOrigin: .seconds(3))))
        let checkpoint = try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        #expect(checkpoint.appNames == ["chat"])
        var restored = Lifecycle(policy: DeviceTokenTests.policy, checkpoint: checkpoint, at: .zero)
        let out = try restored.handle(
            .push(target: .app("chat"), payload: DeviceTokenTests.wake, id: nil), at: Instant(sinceOrigin: .seconds(1)))
        #expect(out.contains(.reply(.push(.pendingLaunch))))
        #expect(restored.state(of: "chat") == .notRunning)
    }
}
