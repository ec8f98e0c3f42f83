/// One durable journal record (§1.6).
public struct JournalRecord: Sendable, Equatable {
    public var app: String
    public var time: Instant
    public var kind: Kind

    public init(app: String, time: Instant, kind: Kind) {
        self.app = app
        self.time = time
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        /// An analytics event: `$AppStart`, `$AppEnd`, `$AppStartPassively`, `$AppTerminated`.
        case analytics(AnalyticsEvent)
        /// A lifecycle state change, with the reason in words (for `explain`).
        case stateChange(from: AppState, to: AppState, because: String)
        /// A decision not to do something, with the reason in words (for `explain`):
        /// a fetch skipped, a push coalesced, a victim passed over.
        case decision(String)
        /// The memory killer's choice of this app, with the figures and the candidates passed over.
        case memoryKill(MemoryKillReport)
        /// Something about the device or the daemon (pressure, screen, policy, start and stop).
        case system(SystemEvent)
    }
}
