import Synchronization
import WardenClient
import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What ballast does through the control API when `APPWARDEN_SOCKET` is set.
struct AppCallOptions: Sendable {
    /// When ballast begins its background task.
    enum TaskStart: Sendable {
        case atStart
        case whenBackgrounded
    }

    /// How ballast answers a fetch or push window.
    enum WindowAnswer: Sendable, Equatable {
        case complete(CompletionResult, afterMilliseconds: Int)
        case never
    }

    var ready = false
    var taskName: String?
    var taskStart = TaskStart.atStart
    var endTaskOnExpiration = true
    var fetch: WindowAnswer?
    var push: WindowAnswer?
    var registerPush = false

    var isEmpty: Bool {
        !ready && taskName == nil && fetch == nil && push == nil && !registerPush
    }

    /// Parses `complete:RESULT:DELAY` or `never`.
    static func windowAnswer(_ text: String, flag: String) -> WindowAnswer {
        if text == "never" { return .never }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == "complete", let result = CompletionResult(rawValue: parts[1]) else {
            failUsage("\(flag) needs \"complete:newData|noData|failed:DELAY\" or \"never\", not \"\(text)\".")
        }
        return .complete(result, afterMilliseconds: parseMilliseconds(parts[2], flag: flag))
    }
}

/// Writes one line to standard output.
func say(_ line: String) {
    let text = "ballast: \(line)\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

/// Carries out the app-call flags on a task of their own, beside ballast's main loop.
enum AppCalls {
    static func start(_ options: AppCallOptions) {
        guard !options.isEmpty else { return }
        let application = WardenApplication.shared
        guard let name = application.appName else {
            let text = "ballast: app-call flags need APPWARDEN_SOCKET and APPWARDEN_APP; ignoring them.\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
            return
        }
        Task.detached {
            do {
                try await run(options, application: application, name: name)
            } catch {
                say("app calls failed: \(error)")
            }
        }
    }

    private static func run(_ options: AppCallOptions, application: WardenApplication, name: String) async throws {
        if let answer = options.fetch {
            application.onFetch { completion in
                say("fetch started")
                answerWindow(answer, kind: "fetch", completion: completion)
            }
        }
        if let answer = options.push {
            application.onPush { payload, completion in
                say("push received \(payload)")
                answerWindow(answer, kind: "push", completion: completion)
            }
        }
        application.onMemoryWarning { say("memory warning") }
        if let taskName = options.taskName {
            let starter = TaskStarter(
                application: application, name: taskName, endOnExpiration: options.endTaskOnExpiration)
            switch options.taskStart {
            case .atStart: try await starter.begin()
            case .whenBackgrounded: application.addObserver(BackgroundWatcher(app: name, starter: starter))
            }
        }
        if options.registerPush {
            say("token \(try await application.registerForRemoteNotifications())")
        }
        if options.ready {
            try await application.ready()
            say("reported ready")
        }
        try await application.run()
    }

    private static func answerWindow(
        _ answer: AppCallOptions.WindowAnswer, kind: String, completion: @escaping @Sendable (CompletionResult) -> Void
    ) {
        guard case .complete(let result, let delay) = answer else {
            say("\(kind) left incomplete")
            return
        }
        Task.detached {
            try? await Task.sleep(for: .milliseconds(delay))
            completion(result)
            say("\(kind) completed \(result.rawValue)")
        }
    }
}

/// Begins ballast's background task once and ends it (or not) on the expiration warning.
private final class TaskStarter: Sendable {
    let application: WardenApplication
    let name: String
    let endOnExpiration: Bool
    private let begun = Mutex(false)
    private let identifier = Mutex<BackgroundTaskIdentifier?>(nil)

    init(application: WardenApplication, name: String, endOnExpiration: Bool) {
        self.application = application
        self.name = name
        self.endOnExpiration = endOnExpiration
    }

    func begin() async throws {
        guard
            begun.withLock({ first in
                defer { first = true }
                return !first
            })
        else { return }
        let id = try await application.beginBackgroundTask(withName: name) { [self] in
            guard endOnExpiration else {
                say("expiration warning for \(name) ignored")
                return
            }
            Task.detached { [self] in
                guard let id = identifier.withLock({ $0 }) else { return }
                do {
                    try await application.endBackgroundTask(id)
                    say("task \(name) ended on expiration")
                } catch {
                    say("task \(name) could not be ended on expiration: \(error)")
                }
            }
        }
        identifier.withLock { $0 = id }
        say("task \(name) begun with id \(id)")
    }
}

/// Begins the task when the app's own status turns to background.
private final class BackgroundWatcher: AppStatusObserver, Sendable {
    let app: String
    let starter: TaskStarter

    init(app: String, starter: TaskStarter) {
        self.app = app
        self.starter = starter
    }

    func appStatusDidChange(app: String, to status: AppStatus) {
        guard app == self.app, status == .background else { return }
        Task.detached { [starter] in
            do { try await starter.begin() } catch { say("begin-task failed: \(error)") }
        }
    }
}
