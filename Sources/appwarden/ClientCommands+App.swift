import ArgumentParser
import FoundationEssentials
import WardenAPI
import WardenClient
import WardenCore

/// `appwarden app …`: the app calls, for apps written as shell scripts. The app is
/// `$APPWARDEN_APP` (or `--app`), the socket `$APPWARDEN_SOCKET` (or `--socket`).
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Make an app's calls from a shell-script app ($APPWARDEN_APP, $APPWARDEN_SOCKET).",
        subcommands: [
            AppReadyCommand.self, AppBeginTaskCommand.self, AppEndTaskCommand.self, AppBeginActivityCommand.self,
            AppEndActivityCommand.self, AppTimeRemainingCommand.self,
            AppCompleteFetchCommand.self, AppCompletePushCommand.self, AppCompleteAccessoryCommand.self,
            AppSetFetchIntervalCommand.self,
            AppRegisterPushCommand.self, AppAcquireCommand.self, AppReleaseCommand.self,
            AppReportStatusCommand.self, AppEventsCommand.self,
        ]
    )
}

/// The options of every `app` call: the client options and the app's name.
struct AppOptions: ParsableArguments {
    @OptionGroup var client: ClientOptions
    @Option(name: .customLong("app"), help: "The app (default: $APPWARDEN_APP).") var appName: String?

    func validate() throws {
        if appName == nil && ProcessInfo.processInfo.environment["APPWARDEN_APP"] == nil {
            throw ValidationError("No app is named: set APPWARDEN_APP (appwarden sets it for its apps) or pass --app.")
        }
    }

    var app: String { appName ?? ProcessInfo.processInfo.environment["APPWARDEN_APP"] ?? "" }
}

/// An `app` command that makes one call (`AppCall`), the same call whether the argument parser
/// read the command line or `AppCall.quickArguments(_:)` did.
protocol AppCallCommand: AsyncParsableCommand {
    var options: AppOptions { get }
    /// The call the command line names.
    var call: AppCall { get }
}

extension AppCallCommand {
    func run() async throws { try call.perform(app: options.app, through: options.client) }
}

/// `appwarden app ready`.
struct AppReadyCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "ready", abstract: "Tell appwarden the app is ready (readiness = \"notify\").")
    @OptionGroup var options: AppOptions
    var call: AppCall { .ready }
}

/// `appwarden app begin-task NAME`: prints the task id.
struct AppBeginTaskCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "begin-task", abstract: "Begin a background task; prints its id for end-task.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The task's name.") var name: String

    var call: AppCall { .beginTask(name: name) }
}

/// `appwarden app end-task ID`.
struct AppEndTaskCommand: AppCallCommand {
    static let configuration = CommandConfiguration(commandName: "end-task", abstract: "End a background task.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The id begin-task printed.") var id: Int

    var call: AppCall { .endTask(id: id) }
}

/// `appwarden app begin-activity MODE`: prints the activity id.
struct AppBeginActivityCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "begin-activity",
        abstract: "Begin continuous background work (audio, location, long-work); prints its id for end-activity.")
    @OptionGroup var options: AppOptions
    @Argument(help: "One of the app's continuous background modes: audio, location or long-work.") var mode: String

    var call: AppCall { .beginActivity(mode: mode) }
}

/// `appwarden app end-activity ID`.
struct AppEndActivityCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-activity", abstract: "End continuous background work.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The id begin-activity printed.") var id: Int

    var call: AppCall { .endActivity(id: id) }
}

/// `appwarden app time-remaining`: seconds left, or `unlimited` in the foreground.
struct AppTimeRemainingCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "time-remaining",
        abstract: "Print the background-task time left in seconds, or \"unlimited\" in the foreground.")
    @OptionGroup var options: AppOptions

    var call: AppCall { .timeRemaining }
}

/// Checks the result argument of complete-fetch and complete-push.
func validateCompletion(_ result: String) throws {
    if !AppCall.isCompletion(result) {
        throw ValidationError(APIMessages.invalidResult(result))
    }
}

/// `appwarden app complete-fetch RESULT`.
struct AppCompleteFetchCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete-fetch", abstract: "Complete a background fetch: newData, noData or failed.")
    @OptionGroup var options: AppOptions
    @Argument(help: "newData, noData or failed.") var result: String

    func validate() throws { try validateCompletion(result) }

    var call: AppCall { .completeFetch(result: result) }
}

/// `appwarden app complete-push RESULT`.
struct AppCompletePushCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete-push", abstract: "Complete the handling of a silent push: newData, noData or failed.")
    @OptionGroup var options: AppOptions
    @Argument(help: "newData, noData or failed.") var result: String

    func validate() throws { try validateCompletion(result) }

    var call: AppCall { .completePush(result: result) }
}

/// `appwarden app complete-accessory`.
struct AppCompleteAccessoryCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete-accessory", abstract: "Complete the handling of an accessory event.")
    @OptionGroup var options: AppOptions

    var call: AppCall { .completeAccessory }
}

/// `appwarden app set-fetch-interval minimum|never|DURATION`.
struct AppSetFetchIntervalCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-fetch-interval", abstract: "Set the minimum time between background fetches.")
    @OptionGroup var options: AppOptions
    @Argument(help: "minimum, never, or a duration such as 15m.") var interval: String

    func validate() throws {
        if !AppCall.isFetchInterval(interval) {
            throw ValidationError(APIMessages.invalidFetchInterval(interval))
        }
    }

    var call: AppCall { .setFetchInterval(interval) }
}

/// `appwarden app register-push`: prints the device token.
struct AppRegisterPushCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-push", abstract: "Print the app's device token for pushes.")
    @OptionGroup var options: AppOptions

    var call: AppCall { .registerPush }
}

/// `appwarden app acquire RESOURCE`.
struct AppAcquireCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "acquire", abstract: "Acquire a shared resource declared in the policy.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The resource.") var resource: String

    var call: AppCall { .acquire(resource: resource) }
}

/// `appwarden app release RESOURCE`.
struct AppReleaseCommand: AppCallCommand {
    static let configuration = CommandConfiguration(commandName: "release", abstract: "Release a shared resource.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The resource.") var resource: String

    var call: AppCall { .release(resource: resource) }
}

/// `appwarden app report-status foreground|background`.
struct AppReportStatusCommand: AppCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "report-status", abstract: "Report the app's status (status_source = \"reported\").")
    @OptionGroup var options: AppOptions
    @Argument(help: "foreground or background.") var status: String

    func validate() throws {
        if !AppCall.isReportedStatus(status) {
            throw ValidationError(APIMessages.invalidStatus(status))
        }
    }

    var call: AppCall { .reportStatus(status) }
}

/// `appwarden app events`: the app's own live events (expiration warnings, fetch starts, pushes…).
struct AppEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Follow the app's own events live (one line each; JSON lines with --json).")
    @OptionGroup var options: AppOptions
    @Option(
        help: """
            First replay the app's stored events after this journal id, then follow (default: \
            $APPWARDEN_EVENTS_SINCE for the app $APPWARDEN_APP names, which the daemon sets at each launch, so \
            that the wake that launched the app is not missed; live only without either).
            """)
    var since: Int64?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let launchedAs = options.appName == nil || options.appName == environment["APPWARDEN_APP"]
        let since = since ?? (launchedAs ? environment["APPWARDEN_EVENTS_SINCE"].flatMap { Int64($0) } : nil)
        try await follow(options.client, JournalQuery(app: options.app, sinceID: since))
    }
}
