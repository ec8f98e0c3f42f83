import ArgumentParser
import Foundation
import Testing

@testable import appwarden

@Suite struct AppCallQuickArgumentsTests {
    /// Every app call's command line read without the argument parser means what the parser makes
    /// of it: the same call, app, socket and output.
    @Test func aQuickReadingMeansWhatTheParserReads() throws {
        let lines = [
            ["app", "ready", "--app", "mail"], ["app", "begin-task", "sync", "--app", "mail"],
            ["app", "begin-task", "--app=mail", "--json", "upload"], ["app", "end-task", "42", "--app", "mail"],
            ["app", "time-remaining", "--app", "mail", "--socket", "/tmp/a.sock"],
            ["app", "complete-fetch", "newData", "--app", "maps"], ["app", "complete-push", "failed", "--app", "maps"],
            ["app", "set-fetch-interval", "15m", "--app", "news"],
            ["app", "set-fetch-interval", "never", "--app", "news"],
            ["app", "register-push", "--app", "chat", "--json", "--socket=/tmp/b.sock"],
            ["app", "acquire", "camera", "--app", "maps"], ["app", "release", "camera", "--app", "maps"],
            ["app", "report-status", "background", "--app", "player"],
        ]
        for line in lines {
            let quick = try #require(AppCall.quickArguments(line[...]), "\(line)")
            let parsed = try #require(try Appwarden.parseAsRoot(line) as? any AppCallCommand, "\(line)")
            #expect(quick.call == parsed.call, "\(line)")
            #expect(quick.app == parsed.options.app, "\(line)")
            #expect(quick.session.socketPath == parsed.options.client.socketPath, "\(line)")
            #expect(quick.session.json == parsed.options.client.json, "\(line)")
        }
    }

    /// Whatever the quick reading is not sure of, or what the command refuses (help, an option it
    /// does not know, a missing or extra argument, an argument that is not valid, an option given
    /// twice, `events`, another command), is left to the parser, which explains it.
    @Test func anythingElseIsLeftToTheParser() {
        let lines = [
            ["app", "begin-task", "--app", "mail"], ["app", "begin-task", "a", "b", "--app", "mail"],
            ["app", "end-task", "seven", "--app", "mail"], ["app", "complete-fetch", "maybe", "--app", "mail"],
            ["app", "set-fetch-interval", "soon", "--app", "mail"],
            ["app", "report-status", "asleep", "--app", "mail"],
            ["app", "ready", "extra", "--app", "mail"], ["app", "ready", "--app", "mail", "--app", "maps"],
            ["app", "ready", "--app"], ["app", "ready", "--app="], ["app", "ready", "--application", "mail"],
            ["app", "ready", "--app", "mail", "--help"], ["app", "help", "ready"], ["app", "events", "--app", "mail"],
            ["app", "begin-task", "--", "-x", "--app", "mail"], ["app", "--app", "mail"],
            ["app", "--app=mail", "ready"], ["app"],
            ["status", "--app", "mail"], ["open", "mail"],
        ]
        for line in lines {
            #expect(AppCall.quickArguments(line[...]) == nil, "\(line)")
        }
    }

    /// Without `--app`, the app is `$APPWARDEN_APP`; with neither the line is left to the parser,
    /// which says that no app is named.
    @Test func theAppComesFromTheEnvironmentOrTheLineIsLeftToTheParser() throws {
        if let app = getenv("APPWARDEN_APP").map({ String(cString: $0) }) {
            #expect(AppCall.quickArguments(["app", "ready"])?.app == app)
        } else {
            #expect(AppCall.quickArguments(["app", "ready"]) == nil)
            #expect(throws: (any Error).self) { try Appwarden.parseAsRoot(["app", "ready"]) }
        }
    }
}
