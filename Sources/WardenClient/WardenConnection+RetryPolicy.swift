extension WardenConnection {
    /// How calls and event streams wait for a daemon that is away: restarting, or not started yet.
    ///
    /// Attempts are spaced by a pause that starts at `initialDelay` and doubles up to
    /// `maximumDelay`, each pause shortened by a random part of up to half (jitter), so that the
    /// apps of one daemon do not all knock at the same moment.
    public struct RetryPolicy: Sendable, Equatable {
        /// The pause before the second attempt.
        public var initialDelay: Duration
        /// The longest pause between two attempts.
        public var maximumDelay: Duration
        /// How long a call keeps trying, and how long an event stream keeps trying before its
        /// first connection (an event stream that met a daemon stopping waits as a connected one
        /// does); `.zero` tries once.
        public var callWindow: Duration
        /// How long an event stream that was connected keeps trying to connect again; nil keeps
        /// trying until the consuming task is cancelled.
        public var streamOutageLimit: Duration?

        public init(
            initialDelay: Duration = .milliseconds(50), maximumDelay: Duration = .seconds(2),
            callWindow: Duration = .seconds(10), streamOutageLimit: Duration? = nil
        ) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.callWindow = callWindow
            self.streamOutageLimit = streamOutageLimit
        }

        /// One attempt, no waiting: what the command line's one-shot commands use.
        public static let once = RetryPolicy(callWindow: .zero, streamOutageLimit: .zero)
    }

    /// The pauses between attempts: doubling from the policy's first delay up to its maximum,
    /// with jitter.
    struct Backoff {
        let policy: RetryPolicy
        private var current: Duration?

        init(_ policy: RetryPolicy) {
            self.policy = policy
        }

        /// The next pause.
        mutating func next() -> Duration {
            let base = current.map { min($0 * 2, policy.maximumDelay) } ?? min(policy.initialDelay, policy.maximumDelay)
            current = base
            return base * Double.random(in: 0.5...1)
        }

        /// Starts again from the first delay, after a success.
        mutating func reset() {
            current = nil
        }
    }
}
