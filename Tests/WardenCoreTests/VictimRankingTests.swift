import Testing
import WardenCore

private func candidate(
    _ app: String, _ band: KillBand, mib: Int64 = 100, lastUsed seconds: Int64 = 0, protected: Bool = false
) -> KillCandidate {
    KillCandidate(
        app: app, band: band, footprint: mib << 20, lastUsed: Instant(sinceOrigin: .seconds(seconds)),
        isProtected: protected)
}

/// A deterministic pseudo-random sequence (a 64-bit linear congruential generator).
private struct SequenceGenerator {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// `count` candidates with bands, sizes, last uses and protection drawn from the sequence, so
    /// that ties are common; `names` makes each name from its index and a drawn number below 30.
    mutating func population(_ count: Int, names: (Int, Int) -> String) -> [KillCandidate] {
        (0..<count).map { index in
            candidate(
                names(index, next(30)), KillBand.allCases[next(KillBand.allCases.count)],
                mib: Int64(next(4)) * 100, lastUsed: Int64(next(5)), protected: next(6) == 0)
        }
    }
}

private func names(_ candidates: [KillCandidate]) -> [String] {
    candidates.map(\.app)
}

@Suite struct VictimRankingTests {
    /// Bands are killed suspended first, then idle background, window, task and foreground last.
    @Test func bandsAreKilledInRuleNineOrder() {
        let candidates = [
            candidate("front", .foreground, mib: 900),
            candidate("task", .backgroundTask, mib: 800),
            candidate("frozen", .suspended, mib: 10),
            candidate("window", .backgroundWindow, mib: 700),
            candidate("idle", .idleBackground, mib: 600),
        ]
        #expect(
            names(VictimRanking.rank(candidates, killForeground: true)) == [
                "frozen", "idle", "window", "task", "front",
            ])
        #expect(VictimRanking.victim(among: candidates, killForeground: true)?.app == "frozen")
    }

    /// Inside a band the app with the largest footprint goes first.
    @Test func largestFootprintGoesFirstInsideABand() {
        let candidates = [
            candidate("small", .suspended, mib: 50),
            candidate("large", .suspended, mib: 500),
            candidate("medium", .suspended, mib: 200),
        ]
        #expect(names(VictimRanking.rank(candidates, killForeground: true)) == ["large", "medium", "small"])
        #expect(VictimRanking.victim(among: candidates, killForeground: true)?.app == "large")
    }

    /// Equal footprints go least recently used first, then by name.
    @Test func tiesGoToTheLeastRecentlyUsedThenByName() {
        let candidates = [
            candidate("recent", .suspended, mib: 100, lastUsed: 90),
            candidate("bravo", .suspended, mib: 100, lastUsed: 10),
            candidate("old", .suspended, mib: 100, lastUsed: 5),
            candidate("alpha", .suspended, mib: 100, lastUsed: 10),
        ]
        #expect(
            names(VictimRanking.rank(candidates, killForeground: true)) == ["old", "alpha", "bravo", "recent"])
        #expect(VictimRanking.victim(among: candidates, killForeground: true)?.app == "old")
        #expect(VictimRanking.victim(among: candidates.reversed(), killForeground: true)?.app == "old")
    }

    /// Protected apps are never chosen, whatever their band or footprint.
    @Test func protectedAppsAreNeverChosen() {
        let candidates = [
            candidate("guarded", .suspended, mib: 4000, protected: true),
            candidate("worker", .backgroundTask, mib: 10),
        ]
        #expect(names(VictimRanking.rank(candidates, killForeground: true)) == ["worker"])
        #expect(VictimRanking.victim(among: candidates, killForeground: true)?.app == "worker")
        #expect(VictimRanking.victim(among: [candidates[0]], killForeground: true) == nil)
    }

    /// Foreground apps are victims only when killForeground is set.
    @Test func foregroundAppsAreKilledOnlyWhenAllowed() {
        let candidates = [candidate("front", .foreground, mib: 900), candidate("task", .backgroundTask, mib: 1)]
        #expect(names(VictimRanking.rank(candidates, killForeground: false)) == ["task"])
        #expect(VictimRanking.victim(among: [candidates[0]], killForeground: false) == nil)
        #expect(VictimRanking.victim(among: [candidates[0]], killForeground: true)?.app == "front")
    }

    /// Nobody to kill gives no victim and an empty order.
    @Test func anEmptyListHasNoVictim() {
        #expect(VictimRanking.victim(among: [], killForeground: true) == nil)
        #expect(VictimRanking.rank([], killForeground: true).isEmpty)
    }

    /// The linear victim search picks the head of the full order, and the order does not depend
    /// on the input order, over many generated populations.
    @Test func victimIsTheHeadOfTheRankingForGeneratedPopulations() {
        var generator = SequenceGenerator(state: 42)
        for round in 0..<200 {
            let candidates = generator.population(1 + generator.next(40), names: { "app\($1)-\($0 % 3)" })
            let killForeground = round % 2 == 0
            let ranked = VictimRanking.rank(candidates, killForeground: killForeground)
            #expect(VictimRanking.victim(among: candidates, killForeground: killForeground) == ranked.first)
            #expect(VictimRanking.rank(candidates.reversed(), killForeground: killForeground) == ranked)
            for (earlier, later) in zip(ranked, ranked.dropFirst()) {
                #expect(earlier.band <= later.band)
                #expect(!later.isProtected)
                if earlier.band == later.band { #expect(earlier.footprint >= later.footprint) }
            }
        }
    }

    /// The first few of the order, taken without sorting the rest, are the head of the whole
    /// order, for any number asked, generated populations with ties, and either foreground rule.
    @Test func theFirstFewAreTheHeadOfTheRanking() {
        var generator = SequenceGenerator(state: 7)
        for round in 0..<300 {
            let candidates = generator.population(generator.next(60), names: { "app\($1)-\($0)" })
            let killForeground = round % 2 == 0
            let ranked = VictimRanking.rank(candidates, killForeground: killForeground)
            for count in [0, 1, 2, 5, 21, 100] {
                #expect(
                    VictimRanking.first(count, of: candidates, killForeground: killForeground)
                        == Array(ranked.prefix(count)), "round \(round), first \(count)")
            }
        }
    }
}
