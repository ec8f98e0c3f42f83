import Testing
import WardenCore
import WardenPolicy

/// App names that cannot name an app's folders and sockets are refused at `policy check`.
struct PolicyAppNameTests {
    static func policy(app name: String) -> String {
        "[apps.\"\(name)\"]\ncommand = \"/usr/bin/true\"\n"
    }

    /// A name longer than the limit is refused with a sentence that names the app, its length and
    /// the limit, and says why; a name at the limit is accepted.
    @Test func aNameLongerThanTheLimitIsRefused() throws {
        let long = String(repeating: "a", count: 300)
        let diagnostics = PolicyFixtures.diagnostics(parsing: Self.policy(app: long), file: "long.toml")
        #expect(
            diagnostics.map(\.description) == [
                "Policy \"long.toml\", line 1: app name \"\(long)\" is 300 characters long; an app name may have at most 64, because it names the app's memory-pressure socket (/run/appwarden-pressure/NAME.sock), and a Unix socket path must fit in 108 bytes."
            ])
        let atLimit = String(repeating: "b", count: AppPolicy.nameLimit)
        let policy = try PolicyLoader.parse(Self.policy(app: atLimit), file: "limit.toml")
        #expect(policy.app(named: atLimit) != nil)
        #expect(PolicyFixtures.diagnostics(parsing: Self.policy(app: atLimit + "c"), file: "over.toml").count == 1)
    }

    /// A name with a letter outside ASCII is refused with a rule that says ASCII letters, since
    /// "é" is a letter too.
    @Test func aNameWithALetterOutsideASCIIIsRefusedNamingASCII() {
        let diagnostics = PolicyFixtures.diagnostics(parsing: Self.policy(app: "café"), file: "cafe.toml")
        #expect(
            diagnostics.map(\.description) == [
                #"Policy "cafe.toml", line 1: app name "café" is not valid: use only ASCII letters (a-z, A-Z), digits, "-", "_" and "." (and not "." or ".." alone), because the name becomes a directory name."#
            ])
    }
}
