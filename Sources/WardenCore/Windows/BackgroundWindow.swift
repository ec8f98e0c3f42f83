/// A window in which a woken app runs in background until it says it is done: a fetch's
/// (rule 4), a silent push's (rule 5) or an accessory event's (rule 14).
///
/// The three follow one rule: the app is thawed or launched passively, has the window to call its
/// completion, and is terminated when the window ends without it. Each window counts only the
/// time the app could run (`WindowStall`).
public enum BackgroundWindow: String, Sendable, Hashable, CaseIterable {
    case fetch
    case push
    case accessory
}

extension BackgroundWindow {
    /// The timer that ends the window.
    var timer: TimerID.Kind {
        switch self {
        case .fetch: .fetchWindow
        case .push: .pushWindow
        case .accessory: .accessoryWindow
        }
    }

    /// Where the record counts the stall in the window.
    var stall: WritableKeyPath<AppRecord, WindowStall?> {
        switch self {
        case .fetch: \.fetchStall
        case .push: \.pushStall
        case .accessory: \.accessoryStall
        }
    }

    /// Whether the window is open in `record`.
    func isOpen(in record: AppRecord) -> Bool {
        switch self {
        case .fetch: record.fetchWindowOpen
        case .push: record.pushWindowOpen
        case .accessory: record.accessoryWindowOpen
        }
    }

    /// The window's length under `settings`: `fetch.window`, or `push.window` for a push and an
    /// accessory event.
    func length(_ settings: TimingSettings) -> Duration {
        switch self {
        case .fetch: settings.fetch.window
        case .push, .accessory: settings.push.window
        }
    }

    /// How a journal sentence begins that speaks of the window: "Fetch window", "Push window",
    /// "Accessory window".
    var sentenceName: String {
        switch self {
        case .fetch: "Fetch window"
        case .push: "Push window"
        case .accessory: "Accessory window"
        }
    }

    /// The call that completes the window: `complete-fetch`, `complete-push`, `complete-accessory`.
    var completion: String { "complete-\(rawValue)" }
}
