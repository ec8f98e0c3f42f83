public import WardenCore

/// How a simulated app behaves: the simulation facts of its `[apps.NAME]` table.
public struct AppFacts: Sendable, Equatable {
    /// What killing the app gives back, in bytes (`footprint`); nil when the scenario does not say.
    public var footprint: Int64?
    /// How the app answers a fetch window (`on_fetch`, default "complete newData after 1s").
    public var onFetch: CompletionBehavior
    /// How the app answers a silent push (`on_push`, default "complete newData after 1s").
    public var onPush: CompletionBehavior
    /// What the app does with its expiration call (`on_expiration`, default "end-tasks").
    public var onExpiration: ExpirationBehavior
    /// How long after its process starts the app is ready (`launch_time`, default 0);
    /// nil when it never becomes ready (`"never"`).
    public var launchTime: Duration?
    /// Shared resources whose paths the app's processes keep open (`holds_paths`): freezing
    /// the app finds one of them held, and the runtime reports it instead (rule 7).
    public var holdsPaths: Set<String>
    /// What the app's process does with SIGTERM (`on_terminate`, default "exit"): exit at once,
    /// or keep running until the termination grace ends and it is killed.
    public var onTerminate: TerminationBehavior
    /// How long the app, thawed while compression left some of its memory in swap, stalls
    /// bringing it back (`swap_in`, default 0): its group's memory stall grows by that much over
    /// that time, what reaches it meanwhile is answered only after, and its pages are back in
    /// memory from the thaw on.
    public var swapIn: Duration

    public init(
        footprint: Int64? = nil,
        onFetch: CompletionBehavior = .default,
        onPush: CompletionBehavior = .default,
        onExpiration: ExpirationBehavior = .endTasks,
        launchTime: Duration? = .zero,
        holdsPaths: Set<String> = [],
        onTerminate: TerminationBehavior = .exit,
        swapIn: Duration = .zero
    ) {
        self.footprint = footprint
        self.onFetch = onFetch
        self.onPush = onPush
        self.onExpiration = onExpiration
        self.launchTime = launchTime
        self.holdsPaths = holdsPaths
        self.onTerminate = onTerminate
        self.swapIn = swapIn
    }

    /// The keys of an `[apps.NAME]` table that are simulation facts rather than policy keys.
    public static let keys: Set<String> = [
        "footprint", "on_fetch", "on_push", "on_expiration", "launch_time", "holds_paths", "on_terminate", "swap_in",
    ]
}

/// What an app's process does with SIGTERM (`on_terminate`).
public enum TerminationBehavior: String, Sendable, Equatable, CaseIterable {
    /// Exits at once.
    case exit
    /// Keeps running: the termination grace ends and the whole group is killed.
    case ignore
}

/// How an app answers a fetch or push window: `"complete newData after 1s"` or `"never"`.
public enum CompletionBehavior: Sendable, Equatable, CustomStringConvertible {
    /// Calls `complete-fetch` / `complete-push` with `result` after `delay`.
    case complete(CompletionResult, after: Duration)
    /// Never completes (the window times out).
    case never

    /// `complete newData after 1s`.
    public static let `default` = CompletionBehavior.complete(.newData, after: .seconds(1))

    /// Parses `"complete newData|noData|failed after DURATION"` or `"never"`.
    public init?(parsing text: String) {
        var words = Words(Substring(text))
        guard let first = words.next() else { return nil }
        if first == "never", words.next() == nil {
            self = .never
            return
        }
        guard first == "complete", let resultWord = words.next(),
            let result = CompletionResult(rawValue: String(resultWord)), words.next() == "after",
            let delayWord = words.next(), words.next() == nil,
            let delay = DurationFormat.parse(String(delayWord)), delay >= .zero
        else { return nil }
        self = .complete(result, after: delay)
    }

    public var description: String {
        switch self {
        case .complete(let result, let delay): "complete \(result.rawValue) after \(DurationFormat.string(delay))"
        case .never: "never"
        }
    }
}

/// What an app does with its expiration call (`on_expiration`).
public enum ExpirationBehavior: String, Sendable, Equatable, CaseIterable {
    /// Ends every task named in the call at once.
    case endTasks = "end-tasks"
    /// Does nothing: the budget runs out with the tasks open.
    case ignore
}
