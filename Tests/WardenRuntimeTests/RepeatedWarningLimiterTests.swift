import Testing

@testable import WardenRuntime

/// Repeated warnings: logged once per subject and cause, then counted.
@Suite struct RepeatedWarningLimiterTests {
    /// The first warning is logged; repeats within the minute are counted, and the next one after
    /// the minute is logged with how many came since the last line.
    @Test func repeatsAreCountedAndReportedOncePerInterval() {
        var limiter = RepeatedWarningLimiter(interval: .seconds(60))
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(0)) == .first)
        for second in 1...9 {
            #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(second)) == .suppressed)
        }
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(60)) == .repeated(times: 10))
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(61)) == .suppressed)
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(125)) == .repeated(times: 2))
    }

    /// Another app, or another cause for the same app, is logged at once.
    @Test func eachSubjectAndCauseIsLoggedOnItsOwn() {
        var limiter = RepeatedWarningLimiter()
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .zero) == .first)
        #expect(limiter.admit(subject: "maps", cause: "oom_score_adj", at: .zero) == .first)
        #expect(limiter.admit(subject: "mail", cause: "tasks_max", at: .zero) == .first)
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(1)) == .suppressed)
    }

    /// Once a subject is cleared (its cause went away), its next warning is logged whole again,
    /// and the clear returns the repeats that were never reported.
    @Test func clearingASubjectLogsItsNextWarningAgain() {
        var limiter = RepeatedWarningLimiter()
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .zero) == .first)
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(1)) == .suppressed)
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(2)) == .suppressed)
        #expect(limiter.clear(subject: "mail") == 2)
        #expect(limiter.admit(subject: "mail", cause: "oom_score_adj", at: .seconds(3)) == .first)
    }
}
