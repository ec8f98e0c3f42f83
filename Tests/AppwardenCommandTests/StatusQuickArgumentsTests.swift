import ArgumentParser
import Testing

@testable import appwarden

@Suite struct StatusQuickArgumentsTests {
    /// Every `status` command line read without the argument parser means what the parser makes of
    /// it: the same app, socket and output.
    @Test func aQuickReadingMeansWhatTheParserReads() throws {
        let lines = [
            ["status"], ["status", "mail"], ["status", "--json"], ["status", "mail", "--json"],
            ["status", "--socket", "/tmp/a.sock"], ["status", "--socket=/tmp/b.sock", "maps"],
            ["status", "--json", "--socket", "/run/x.sock", "chat"], ["status", "--socket", "/tmp/c.sock", "--json"],
        ]
        for line in lines {
            let quick = try #require(StatusCommand.quickArguments(line[...]), "\(line)")
            let parsed = try #require(try Appwarden.parseAsRoot(line) as? StatusCommand, "\(line)")
            #expect(quick.app == parsed.app, "\(line)")
            #expect(quick.session.socketPath == parsed.client.socketPath, "\(line)")
            #expect(quick.session.json == parsed.client.json, "\(line)")
        }
    }

    /// Whatever the quick reading is not sure of (help, an option it does not know, a missing
    /// value, a second app, an option given twice, another command) is left to the parser.
    @Test func anythingElseIsLeftToTheParser() {
        let lines = [
            ["status", "--help"], ["status", "-h"], ["status", "help"], ["status", "mail", "maps"],
            ["status", "--socket"], ["status", "--socket", "--json"], ["status", "--socket="],
            ["status", "--json", "--json"], ["status", "--socket", "/a", "--socket", "/b"], ["status", "--verbose"],
            ["status", "--", "mail"], ["open", "mail"], [], ["top"],
        ]
        for line in lines {
            #expect(StatusCommand.quickArguments(line[...]) == nil, "\(line)")
        }
    }
}
