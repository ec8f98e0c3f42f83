public import WardenCore

/// What a journal entry says: the one vocabulary of app events, shared by the journal, the
/// control server's reads and event stream, the Swift client and `explain`.
///
/// On the wire and in the journal's SQLite rows an event is three fields: a `kind`
/// (`EventKind`), a `name` and string `properties` with camelCase keys. `init(kind:name:properties:)`
/// reads them back, including the snake_case keys older daemons wrote (`after_passive`,
/// `duration_ms`, `task_ids`, `remaining_ms`, `window_ms`); what it does not know (a kind or
/// name from a newer daemon, a damaged row) becomes `.unknown` with the fields as they were,
/// shown plainly and written back unchanged, never a failure.
public enum AppEvent: Sendable, Equatable {
    /// An analytics event: `$AppStart`, `$AppEnd`, `$AppStartPassively`, `$AppTerminated`.
    case analytics(AnalyticsEvent)
    /// A lifecycle state change and its reason in words.
    case stateChange(from: AppState, to: AppState, because: String)
    /// A decision, in words: a fetch skipped, a push coalesced, a victim chosen.
    case decision(String)
    /// A message delivered on the app's own event stream.
    case message(AppMessage)
    /// A status publication of the status notifier.
    case status(AppStatus)
    /// The memory killer chose this app: the figures of the moment and the other candidates.
    case memoryKill(MemoryKillReport)
    /// Something that concerns no single app: pressure, the screen, the policy, the daemon.
    case system(SystemEvent)
    /// An input of the core as `export` replays it: a step, the policy in force, or what a
    /// replay cannot reproduce.
    case input(JournalInput)
    /// A record this version does not know, kept as it was stored.
    case unknown(kind: String, name: String, properties: [String: String])
}

/// The kinds of journal entries.
public enum EventKind: String, Sendable, Codable, CaseIterable {
    case analytics, state, decision, message, status, system, input
}

extension AppEvent {
    /// The entry's kind.
    public var kind: EventKind? {
        switch self {
        case .analytics: .analytics
        case .stateChange: .state
        case .decision, .memoryKill: .decision
        case .message: .message
        case .status: .status
        case .system: .system
        case .input: .input
        case .unknown(let kind, _, _): EventKind(rawValue: kind)
        }
    }

    /// The event's name: `$AppStart`, the new state, `decision`, `memoryKill`, the message's
    /// name, the status, or the system event's name.
    public var name: String {
        fields.name
    }

    /// The kind as written on the wire.
    public var kindText: String {
        fields.kind
    }

    /// Further properties, as strings with camelCase keys.
    public var properties: [String: String] {
        fields.properties
    }
}
