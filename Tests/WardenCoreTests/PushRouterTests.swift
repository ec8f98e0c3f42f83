import Testing
import WardenCore

private func minutes(_ value: Int64) -> Instant {
    Instant(sinceOrigin: .seconds(value * 60))
}

@Suite struct PushRouterTests {
    private let settings = PushSettings()

    private func admit(
        _ router: inout PushRouter, _ app: String = "mail", _ payload: String = "{}", id: String? = nil,
        contentAvailable: Bool = true, forceQuit: Bool = false, at time: Instant
    ) -> PushRouter.Admission {
        router.admit(
            app: app, payload: payload, id: id, contentAvailable: contentAvailable, isForceQuit: forceQuit,
            now: time, settings: settings)
    }

    /// Tokens are tok-APP-N, stable until a rotation, which makes the old one stale.
    @Test func tokensAreDeterministicAndRotate() {
        var router = PushRouter()
        #expect(router.token(for: "mail") == "tok-mail-1")
        #expect(router.token(for: "mail") == "tok-mail-1")
        #expect(router.token(for: "maps") == "tok-maps-1")
        router.rotateToken(for: "mail")
        #expect(router.token(for: "mail") == "tok-mail-2")
        #expect(router.lookup(token: "tok-mail-1") == .stale(app: "mail"))
        #expect(router.lookup(token: "tok-mail-2") == .app("mail"))
        #expect(router.lookup(token: "tok-maps-1") == .app("maps"))
        #expect(router.lookup(token: "tok-news-1") == .unknown)
        router.rotateToken(for: "mail")
        #expect(router.lookup(token: "tok-mail-2") == .stale(app: "mail"))
        #expect(router.lookup(token: "tok-mail-3") == .app("mail"))
    }

    /// Rotating an app that never had a token hands out nothing; its first token is still N = 1.
    @Test func rotatingWithoutATokenDoesNothing() {
        var router = PushRouter()
        router.rotateToken(for: "news")
        #expect(router.lookup(token: "tok-news-1") == .unknown)
        #expect(router.token(for: "news") == "tok-news-1")
    }

    /// Three wakes per hour; a fourth is coalesced until the oldest wake's hour ends.
    @Test func fourthPushInAnHourIsCoalescedUntilTheOldestSlotFrees() {
        var router = PushRouter()
        #expect(admit(&router, at: minutes(0)) == .deliver)
        #expect(admit(&router, at: minutes(10)) == .deliver)
        #expect(admit(&router, at: minutes(20)) == .deliver)
        #expect(admit(&router, "mail", "{\"n\":4}", at: minutes(30)) == .coalesce(until: minutes(60)))
        #expect(router.nextSlot(app: "mail", now: minutes(30), settings: settings) == minutes(60))
        #expect(router.wakesInLastHour(app: "mail", now: minutes(30)) == 3)
        // Another app's slots are its own.
        #expect(admit(&router, "maps", at: minutes(30)) == .deliver)
    }

    /// While coalesced, a newer push replaces the held one; the slot timer delivers the newest.
    @Test func coalescingKeepsTheNewestPush() {
        var router = PushRouter()
        for minute: Int64 in [0, 10, 20] { _ = admit(&router, at: minutes(minute)) }
        _ = admit(&router, "mail", "old", id: "a", at: minutes(30))
        #expect(admit(&router, "mail", "new", id: "b", at: minutes(40)) == .coalesce(until: minutes(60)))
        #expect(router.coalescedPush(app: "mail") == PushRouter.Pending(payload: "new", id: "b"))
        #expect(router.takeCoalesced(app: "mail", now: minutes(59), settings: settings) == nil)
        #expect(
            router.takeCoalesced(app: "mail", now: minutes(60), settings: settings)
                == PushRouter.Pending(payload: "new", id: "b"))
        #expect(router.takeCoalesced(app: "mail", now: minutes(61), settings: settings) == nil)
        #expect(router.nextSlot(app: "mail", now: minutes(61), settings: settings) == nil)
    }

    /// The hour slides: after wakes at 10, 20 and 60 minutes the next slot frees at 70 minutes.
    @Test func theHourSlides() {
        var router = PushRouter()
        for minute: Int64 in [0, 10, 20] { _ = admit(&router, at: minutes(minute)) }
        _ = admit(&router, at: minutes(30))
        _ = router.takeCoalesced(app: "mail", now: minutes(60), settings: settings)
        #expect(admit(&router, at: minutes(65)) == .coalesce(until: minutes(70)))
        #expect(router.nextSlot(app: "mail", now: minutes(75), settings: settings) == minutes(75))
        #expect(admit(&router, at: minutes(75)) == .deliver)
    }

    /// A push arriving when a slot is free again delivers itself and drops the older held push.
    @Test func aFreeSlotDeliversTheNewPushAndDropsTheHeldOne() {
        var router = PushRouter()
        for minute: Int64 in [0, 10, 20] { _ = admit(&router, at: minutes(minute)) }
        _ = admit(&router, "mail", "held", at: minutes(30))
        #expect(admit(&router, "mail", "fresh", at: minutes(61)) == .deliver)
        #expect(router.coalescedPush(app: "mail") == nil)
    }

    /// A delivered id is a duplicate later; a coalesced push that was replaced was never delivered.
    @Test func deliveredIdsAreDuplicatesButReplacedOnesAreNot() {
        var router = PushRouter()
        #expect(admit(&router, id: "one", at: minutes(0)) == .deliver)
        #expect(admit(&router, id: "one", at: minutes(1)) == .duplicate)
        _ = admit(&router, id: "two", at: minutes(2))
        _ = admit(&router, id: "three", at: minutes(3))
        _ = admit(&router, id: "replaced", at: minutes(4))
        _ = admit(&router, id: "kept", at: minutes(5))
        _ = router.takeCoalesced(app: "mail", now: minutes(60), settings: settings)
        #expect(admit(&router, id: "kept", at: minutes(121)) == .duplicate)
        #expect(admit(&router, id: "replaced", at: minutes(121)) == .deliver)
        // Ids are per app.
        #expect(admit(&router, "maps", id: "one", at: minutes(121)) == .deliver)
    }

    /// A push without content-available wakes nothing and takes no slot or id.
    @Test func pushesWithoutContentAvailableAreNotRecorded() {
        var router = PushRouter()
        for minute: Int64 in 0..<5 {
            #expect(admit(&router, id: "silent", contentAvailable: false, at: minutes(minute)) == .notWoken)
        }
        #expect(router.wakesInLastHour(app: "mail", now: minutes(5)) == 0)
        #expect(admit(&router, id: "silent", at: minutes(6)) == .deliver)
    }

    /// A force-quit app keeps only the newest push for its next launch, which then counts as delivered.
    @Test func forceQuitAppsKeepTheNewestPushForLaunch() {
        var router = PushRouter()
        #expect(admit(&router, "mail", "first", id: "f", forceQuit: true, at: minutes(0)) == .pendingLaunch)
        #expect(admit(&router, "mail", "second", id: "s", forceQuit: true, at: minutes(1)) == .pendingLaunch)
        #expect(router.wakesInLastHour(app: "mail", now: minutes(1)) == 0)
        #expect(router.takePendingForLaunch(app: "mail") == PushRouter.Pending(payload: "second", id: "s"))
        #expect(router.takePendingForLaunch(app: "mail") == nil)
        #expect(admit(&router, id: "s", at: minutes(2)) == .duplicate)
        #expect(admit(&router, id: "f", at: minutes(2)) == .deliver)
    }

    /// A push coalesced before a force-quit is replaced by a newer one kept for the launch, or,
    /// if none came, handed to the launch itself without taking a slot.
    @Test func aCoalescedPushIsHandedToTheNextLaunch() {
        var router = PushRouter()
        for minute: Int64 in [0, 1, 2] { _ = admit(&router, at: minutes(minute)) }
        _ = admit(&router, "mail", "held", id: "h", at: minutes(3))
        #expect(router.takePendingForLaunch(app: "mail") == PushRouter.Pending(payload: "held", id: "h"))
        #expect(router.coalescedPush(app: "mail") == nil)
        #expect(router.wakesInLastHour(app: "mail", now: minutes(4)) == 3)
        #expect(admit(&router, id: "h", at: minutes(61)) == .duplicate)

        _ = admit(&router, "mail", "older", at: minutes(5))
        #expect(admit(&router, "mail", "newer", forceQuit: true, at: minutes(6)) == .pendingLaunch)
        #expect(router.coalescedPush(app: "mail") == nil)
        #expect(router.takeCoalesced(app: "mail", now: minutes(60), settings: settings) == nil)
        #expect(router.takePendingForLaunch(app: "mail")?.payload == "newer")
    }

    /// Reset frees the slots and drops held pushes but remembers delivered ids.
    @Test func resetForgetsSlotsAndHeldPushesButNotIds() {
        var router = PushRouter()
        for minute: Int64 in [0, 1, 2] { _ = admit(&router, id: "id\(minute)", at: minutes(minute)) }
        _ = admit(&router, id: "held", at: minutes(3))
        router.reset(app: "mail")
        #expect(router.coalescedPush(app: "mail") == nil)
        #expect(router.wakesInLastHour(app: "mail", now: minutes(4)) == 0)
        #expect(admit(&router, id: "id0", at: minutes(4)) == .duplicate)
        #expect(admit(&router, id: "held", at: minutes(4)) == .deliver)
        _ = admit(&router, forceQuit: true, at: minutes(5))
        router.reset(app: "mail")
        #expect(router.takePendingForLaunch(app: "mail") == nil)
    }

    /// A lower max_per_hour applies at once to wakes already taken.
    @Test func theLimitFollowsTheSettings() {
        var router = PushRouter()
        let one = PushSettings(maxPerHour: 1)
        #expect(
            router.admit(
                app: "mail", payload: "{}", id: nil, contentAvailable: true, isForceQuit: false, now: minutes(0),
                settings: one) == .deliver)
        #expect(
            router.admit(
                app: "mail", payload: "{}", id: nil, contentAvailable: true, isForceQuit: false, now: minutes(30),
                settings: one) == .coalesce(until: minutes(60)))
        #expect(router.takeCoalesced(app: "mail", now: minutes(60), settings: one) != nil)
    }
}
