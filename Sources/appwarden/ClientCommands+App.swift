import ArgumentParser
import Foundation
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
            AppReadyCommand.self, AppBeginTaskCommand.self, AppEndTaskCommand.self, AppTimeRemainingCommand.self,
            AppCompleteFetchCommand.self, AppCompletePushCommand.self, AppSetFetchIntervalCommand.self,
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

    /// Makes the app call `endpoint` without a body.
    func call<Reply>(_ endpoint: APIEndpoint<NoBody, Reply>) async throws -> Reply {
        try await client.call(endpoint, [app])
    }

    /// Makes the app call `endpoint` with a JSON body.
    func call<Body: Encodable, Reply>(_ endpoint: APIEndpoint<Body, Reply>, body: Body) async throws -> Reply {
        try await client.call(endpoint, [app], body: body)
    }
}

/// `appwarden app ready`.
struct AppReadyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ready", abstract: "Tell appwarden the app is ready (readiness = \"notify\").")
    @OptionGroup var options: AppOptions
    func run() async throws { options.client.output(try await options.call(ControlAPI.ready), text: "") }
}

/// `appwarden app begin-task NAME`: prints the task id.
struct AppBeginTaskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "begin-task", abstract: "Begin a background task; prints its id for end-task.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The task's name.") var name: String

    func run() async throws {
        let begun = try await options.call(ControlAPI.beginTask, body: ControlRequests.BeginTask(name: name))
        options.client.output(begun, text: "\(begun.id)")
    }
}

/// `appwarden app end-task ID`.
struct AppEndTaskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "end-task", abstract: "End a background task.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The id begin-task printed.") var id: Int

    func run() async throws {
        options.client.output(
            try await options.call(ControlAPI.endTask, body: ControlRequests.EndTask(id: id)), text: "")
    }
}

/// `appwarden app time-remaining`: seconds left, or `unlimited` in the foreground.
struct AppTimeRemainingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "time-remaining",
        abstract: "Print the background-task time left in seconds, or \"unlimited\" in the foreground.")
    @OptionGroup var options: AppOptions

    func run() async throws {
        let answer = try await options.call(ControlAPI.timeRemaining)
        let text = answer.remainingMillis.map { String(format: "%.3f", Double($0) / 1000) } ?? "unlimited"
        options.client.output(answer, text: text)
    }
}

/// Checks the result argument of complete-fetch and complete-push.
func validateCompletion(_ result: String) throws {
    if CompletionResult(rawValue: result) == nil {
        throw ValidationError(APIMessages.invalidResult(result))
    }
}

/// `appwarden app complete-fetch RESULT`.
struct AppCompleteFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete-fetch", abstract: "Complete a background fetch: newData, noData or failed.")
    @OptionGroup var options: AppOptions
    @Argument(help: "newData, noData or failed.") var result: String

    func validate() throws { try validateCompletion(result) }

    func run() async throws {
        let body = ControlRequests.Completion(result: result)
        options.client.output(try await options.call(ControlAPI.completeFetch, body: body), text: "")
    }
}

/// `appwarden app complete-push RESULT`.
struct AppCompletePushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete-push", abstract: "Complete the handling of a silent push: newData, noData or failed.")
    @OptionGroup var options: AppOptions
    @Argument(help: "newData, noData or failed.") var result: String

    func validate() throws { try validateCompletion(result) }

    func run() async throws {
        let body = ControlRequests.Completion(result: result)
        options.client.output(try await options.call(ControlAPI.completePush, body: body), text: "")
    }
}

/// `appwarden app set-fetch-interval minimum|never|DURATION`.
struct AppSetFetchIntervalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-fetch-interval", abstract: "Set the minimum time between background fetches.")
    @OptionGroup var options: AppOptions
    @Argument(help: "minimum, never, or a duration such as 15m.") var interval: String

    func validate() throws {
        if FetchInterval(parsing: interval) == nil {
            throw ValidationError(APIMessages.invalidFetchInterval(interval))
        }
    }

    func run() async throws {
        let body = ControlRequests.FetchInterval(interval: interval)
        options.client.output(try await options.call(ControlAPI.fetchInterval, body: body), text: "")
    }
}

/// `appwarden app register-push`: prints the device token.
struct AppRegisterPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-push", abstract: "Print the app's device token for pushes.")
    @OptionGroup var options: AppOptions

    func run() async throws {
        let answer = try await options.call(ControlAPI.registerPush)
        options.client.output(answer, text: answer.token)
    }
}

/// `appwarden app acquire RESOURCE`.
struct AppAcquireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acquire", abstract: "Acquire a shared resource declared in the policy.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The resource.") var resource: String

    func run() async throws {
        options.client.output(
            try await options.call(ControlAPI.acquire, body: ControlRequests.Resource(resource: resource)), text: "")
    }
}

/// `appwarden app release RESOURCE`.
struct AppReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "release", abstract: "Release a shared resource.")
    @OptionGroup var options: AppOptions
    @Argument(help: "The resource.") var resource: String

    func run() async throws {
        options.client.output(
            try await options.call(ControlAPI.release, body: ControlRequests.Resource(resource: resource)), text: "")
    }
}

/// `appwarden app report-status foreground|background`.
struct AppReportStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report-status", abstract: "Report the app's status (status_source = \"reported\").")
    @OptionGroup var options: AppOptions
    @Argument(help: "foreground or background.") var status: String

    func validate() throws {
        if status != AppStatus.foreground.description && status != AppStatus.background.description {
            throw ValidationError(APIMessages.invalidStatus(status))
        }
    }

    func run() async throws {
        let body = ControlRequests.StatusReport(status: status)
        options.client.output(try await options.call(ControlAPI.reportStatus, body: body), text: "")
    }
}

/// `appwarden app events`: the app's own live events (expiration warnings, fetch starts, pushes…).
struct AppEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Follow the app's own events live (one line each; JSON lines with --json).")
    @OptionGroup var options: AppOptions

    func run() async throws {
        try await follow(options.client, JournalQuery(app: options.app))
    }
}
