import Testing
import WardenCore
import WardenPolicy

/// The `accessories` key of an app: the devices whose events wake it (rule 14).
@Suite struct PolicyAccessoryTests {
    /// Each inline table becomes one match with the fields it names; an app without the key has none.
    @Test func accessoryTablesBecomeMatches() throws {
        let text = """
            [apps.till]
            command = "/usr/bin/till"
            accessories = [{ subsystem = "usb", vendor = "0x1234", product = "5678" }, { tag = "scanner" }]
            [apps.mail]
            command = "/usr/bin/mail"
            """
        let policy = try PolicyLoader.parse(text, file: "kiosk.toml")
        #expect(
            policy.app(named: "till")?.accessories == [
                AccessoryMatch(subsystem: "usb", vendor: "0x1234", product: "5678"), AccessoryMatch(tag: "scanner"),
            ])
        #expect(policy.app(named: "mail")?.accessories == [])
    }

    /// Bad matches are refused with a sentence naming the key: not an array, not a table, an
    /// unknown key, an id that is not four hex digits, a tag list, an empty match.
    @Test func badMatchesAreRefusedWithASentence() {
        let text = """
            [apps.till]
            command = "/usr/bin/till"
            accessories = [{ vendr = "0x1234" }, "usb", { vendor = "0x12345" }, { tag = "a:b" }, {}]
            [apps.tv]
            command = "/usr/bin/tv"
            accessories = "usb"
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "kiosk.toml").map(\.description)
        #expect(
            diagnostics == [
                #"Policy "kiosk.toml", line 3: key "apps.till.accessories.vendr" is unknown; did you mean "apps.till.accessories.vendor"?"#,
                #"Policy "kiosk.toml", line 3: key "apps.till.accessories" must hold accessory matches as tables such as { subsystem = "usb", vendor = "0x1234" }, not a string."#,
                #"Policy "kiosk.toml", line 3: key "apps.till.accessories.vendor" must be a vendor id of four hex digits such as "0x1d6b", not "0x12345"."#,
                #"Policy "kiosk.toml", line 3: key "apps.till.accessories.tag" must be one udev tag without ":", such as "scanner"."#,
                #"Policy "kiosk.toml", line 3: key "apps.till.accessories" holds an empty accessory match, which would match nothing; name at least one of "subsystem", "vendor", "product" or "tag"."#,
                #"Policy "kiosk.toml", line 6: key "apps.tv.accessories" must be an array of accessory matches such as [{ subsystem = "usb", vendor = "0x1234", product = "0x5678" }, { tag = "scanner" }]."#,
            ])
    }
}
