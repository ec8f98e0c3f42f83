import Testing
import WardenCore
import WardenPolicy

/// App names that cannot name an app's folders are refused at `policy check`.
struct PolicyAppNameTests {
    static func policy(app name: String) -> String {
        "[apps.\"\(name)\"]\ncommand = \"/usr/bin/true\"\n"
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
