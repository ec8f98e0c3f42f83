/// The stall an app's own group went through during one of its fetch, push or accessory windows
/// (time its processes waited on memory or for a CPU), counted so that a window lasts the time
/// the app could run.
///
/// The runtime measures the group's stall (the PSI `some` totals of its `memory.pressure` and
/// `cpu.pressure`, since the group began) when the window opens and again when it ends; the stall
/// in between is added to the window, up to one more window in all, before the app is terminated
/// for not completing.
struct WindowStall: Sendable, Equatable, Codable {
    /// The group's stall total when the window opened; nil until the runtime measured it.
    var baseline: Duration?
    /// How much stall has been added to the window so far.
    var credited: Duration = .zero
    /// Whether the window reached its end and waits for a measurement to decide.
    var awaitingEnd = false

    /// How long a window at its end waits for the measurement before it ends without one.
    static let answerWait: Duration = .seconds(1)

    /// The smallest stall worth adding to a window: less than this, and the window ends.
    static let smallestCredit: Duration = .milliseconds(100)

    /// How much to add to a window of length `window` now that the group's stall total is
    /// `total`; zero when the window ends. Never more than `window` in all.
    func credit(total: Duration, window: Duration) -> Duration {
        let extra = min(stalled(total: total), window) - credited
        return extra >= Self.smallestCredit ? extra : .zero
    }

    /// The stall in the window now that the group's stall total is `total`.
    func stalled(total: Duration) -> Duration {
        guard let baseline else { return .zero }
        return max(.zero, total - baseline)
    }
}
