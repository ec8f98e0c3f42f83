import ArgumentParser
import Testing

@testable import appwarden

@Suite struct VerbQuickArgumentsTests {
    /// Every one-call operator verb's command line read without the argument parser means what the
    /// parser makes of it: the same verb, app, socket and output.
    @Test func aQuickReadingMeansWhatTheParserReads() throws {
        let lines = [
            ["home"], ["overlay", "--json"], ["overlay-end"], ["lock", "--socket", "/tmp/a.sock"],
            ["unlock", "--socket=/tmp/b.sock", "--json"], ["force-quit", "mail"], ["reset", "--json", "maps"],
            ["force-quit", "chat", "--socket", "/run/x.sock"],
        ]
        for line in lines {
            let quick = try #require(VerbCall.quickArguments(line[...]), "\(line)")
            let parsed = try Appwarden.parseAsRoot(line)
            if let verb = parsed as? any AppVerbCommand {
                #expect(quick.name == type(of: verb).configuration.commandName, "\(line)")
                #expect(quick.app == verb.app, "\(line)")
                #expect(quick.session.socketPath == verb.client.socketPath, "\(line)")
                #expect(quick.session.json == verb.client.json, "\(line)")
            } else {
                let verb = try #require(parsed as? any ScreenVerbCommand, "\(line)")
                #expect(quick.name == type(of: verb).configuration.commandName, "\(line)")
                #expect(quick.app == nil, "\(line)")
                #expect(quick.session.socketPath == verb.client.socketPath, "\(line)")
                #expect(quick.session.json == verb.client.json, "\(line)")
            }
        }
    }

    /// Whatever the quick reading is not sure of (`open`, which watches the launch; help; a
    /// missing or extra app; an option it does not know; another command) is left to the parser.
    @Test func anythingElseIsLeftToTheParser() {
        let lines = [
            ["open", "mail"], ["home", "mail"], ["lock", "--help"], ["force-quit"], ["reset", "mail", "maps"],
            ["force-quit", "--app", "mail"], ["home", "--app=mail"], ["unlock", "--verbose"], ["help", "home"],
            ["--json", "home"], ["status"], ["app", "ready"], ["push", "mail", "{}"], [],
        ]
        for line in lines {
            #expect(VerbCall.quickArguments(line[...]) == nil, "\(line)")
        }
    }
}
