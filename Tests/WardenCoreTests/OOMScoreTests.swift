import Testing
import WardenCore

@Suite struct OOMScoreTests {
    private let mebibyte: Int64 = 1 << 20

    /// Scores rise band by band from foreground to suspended, for every footprint.
    @Test func scoresRiseFromForegroundToSuspended() {
        let order: [KillBand] = [.foreground, .backgroundTask, .backgroundWindow, .idleBackground, .suspended]
        for footprint: Int64 in [0, mebibyte, 512 * mebibyte, 1 << 40] {
            let scores = order.map { OOMScore.score(band: $0, footprint: footprint, isProtected: false) }
            #expect(scores == scores.sorted())
            #expect(Set(scores).count == scores.count)
        }
        #expect(OOMScore.score(band: .foreground, footprint: 1 << 40, isProtected: false) <= 0)
    }

    /// Inside the suspended band every doubling of the footprint scores strictly higher, up to 1000.
    @Test func largerSuspendedFootprintsScoreHigher() {
        var previous = OOMScore.score(band: .suspended, footprint: 0, isProtected: false)
        #expect(previous == 500)
        for power in 0...16 {
            let score = OOMScore.score(band: .suspended, footprint: mebibyte << power, isProtected: false)
            #expect(score > previous, "footprint 2^\(power) MiB")
            previous = score
        }
        #expect(previous == 1000)
        #expect(OOMScore.score(band: .suspended, footprint: .max, isProtected: false) == 1000)
    }

    /// The suspended band never decreases as the footprint grows, even between powers of two.
    @Test func suspendedScoresNeverDecrease() {
        var previous = Int.min
        var footprint: Int64 = 0
        while footprint < 200 * mebibyte {
            let score = OOMScore.score(band: .suspended, footprint: footprint, isProtected: false)
            #expect(score >= previous)
            #expect((500...1000).contains(score))
            previous = score
            footprint += 3 * mebibyte / 2
        }
    }

    /// The documented points of the suspended mapping hold exactly.
    @Test func suspendedMappingMatchesItsDocumentation() {
        #expect(OOMScore.score(band: .suspended, footprint: mebibyte, isProtected: false) == 531)
        #expect(OOMScore.score(band: .suspended, footprint: 1 << 30, isProtected: false) == 812)
        #expect(OOMScore.score(band: .suspended, footprint: 64 << 30, isProtected: false) == 1000)
    }

    /// Protected apps score lowest of all, in any band, and a negative footprint does not trap.
    @Test func protectedAppsScoreLowest() {
        let lowestUnprotected = KillBand.allCases.map {
            OOMScore.score(band: $0, footprint: 0, isProtected: false)
        }.min()!
        for band in KillBand.allCases {
            let score = OOMScore.score(band: band, footprint: 1 << 33, isProtected: true)
            #expect(score == -900)
            #expect(score < lowestUnprotected)
        }
        #expect(OOMScore.score(band: .suspended, footprint: -5, isProtected: false) == 500)
    }
}
