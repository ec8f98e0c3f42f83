import Testing
import WardenPolicy

/// Located TOML documents: every value knows its file and line, keys keep file order.
@Suite struct LocatedDocumentTests {
    /// Keys under table headers, dotted keys and quoted keys carry the line they are written on.
    @Test func keysCarryTheirLines() throws {
        let text = """
            # a comment
            top = 1

            [scenario]
            name = "a \\"quoted\\" # not a comment"
            memory.total = "2GiB"
            "quoted key" = true
            'literal.key' = 2.5

            [apps.mail]
            command = "/usr/bin/mail"
            """
        let document = try LocatedDocument(text: text, file: "doc.toml")
        let root = document.root
        #expect(root["top"]?.line == 2)
        let scenario = try #require(root["scenario"]?.table)
        #expect(scenario.line == 4)
        #expect(scenario["name"]?.line == 5)
        #expect(scenario["name"]?.string == #"a "quoted" # not a comment"#)
        #expect(scenario["memory"]?.table?["total"]?.line == 6)
        #expect(scenario["quoted key"]?.line == 7)
        #expect(scenario["literal.key"]?.line == 8)
        #expect(scenario["literal.key"]?.float == 2.5)
        let mail = try #require(root["apps"]?.table?["mail"])
        #expect(mail.line == 10)
        #expect(mail.table?["command"]?.line == 11)
        #expect(mail.table?["command"]?.keyPath == ["apps", "mail", "command"])
        #expect(mail.table?["command"]?.file == "doc.toml")
    }

    /// Each element of a multi-line array carries the line it starts on, across comments and
    /// multi-line strings.
    @Test func arrayElementsCarryTheirLines() throws {
        let text = """
            [scenario]
            steps = [
              "0s open mail",   # first
              # a comment line
              "1s open maps", "1s home",
              \"\"\"2s
            push mail {}\"\"\",
              "3s lock",
            ]
            after = 1
            """
        let document = try LocatedDocument(text: text, file: "steps.toml")
        let steps = try #require(document.root["scenario"]?.table?["steps"]?.array)
        #expect(steps.map(\.line) == [3, 5, 5, 6, 8])
        #expect(
            steps.map { $0.string ?? "" } == ["0s open mail", "1s open maps", "1s home", "2s\npush mail {}", "3s lock"])
        #expect(document.root["scenario"]?.table?["after"]?.line == 10)
    }

    /// Keys inside an inline table carry the inline table's line; arrays of tables number their elements.
    @Test func inlineTablesAndArraysOfTablesAreLocated() throws {
        let text = """
            env = { LANG = "C", nested = { deep = 1 } }

            [[step]]
            at = "1s"

            [[step]]
            at = "2s"
            """
        let document = try LocatedDocument(text: text, file: "inline.toml")
        #expect(document.root["env"]?.table?["nested"]?.table?["deep"]?.line == 1)
        let steps = try #require(document.root["step"]?.array)
        #expect(steps.map(\.line) == [3, 6])
        #expect(steps.map { $0.table?["at"]?.line } == [4, 7])
    }

    /// Keys and tables keep the order of the file, not an alphabetical one.
    @Test func keysKeepFileOrder() throws {
        let text = """
            zeta = 1
            alpha = 2
            [apps.maps]
            [apps.camera]
            [apps.mail]
            """
        let document = try LocatedDocument(text: text, file: "order.toml")
        #expect(document.root.keys == ["zeta", "alpha", "apps"])
        #expect(document.root["apps"]?.table?.keys == ["maps", "camera", "mail"])
    }

    /// A table declared twice and a key set twice are named with the line of the first;
    /// the label given names the kind of file.
    @Test func duplicatesAreRefusedWithTheFirstLine() {
        let text = """
            [apps.mail]
            footprint = "1MiB"
            footprint = "2MiB"
            [apps.mail]
            """
        do {
            _ = try LocatedDocument(text: text, file: "dup.toml", label: "Scenario")
            Issue.record("The document was accepted.")
        } catch {
            #expect(
                error.diagnostics.map(\.description) == [
                    #"Scenario "dup.toml", line 3: key "apps.mail.footprint" is set twice (first at line 2)."#,
                    #"Scenario "dup.toml", line 4: app "mail" is declared twice (first at line 1)."#,
                ])
        }
    }

    /// A syntax error names the line, and the label.
    @Test func syntaxErrorNamesTheLine() {
        do {
            _ = try LocatedDocument(text: "a = 1\nb = \n", file: "bad.toml", label: "Scenario")
            Issue.record("The document was accepted.")
        } catch {
            #expect(error.diagnostics.count == 1)
            #expect(error.diagnostics.first?.line == 2)
            #expect(error.diagnostics.first?.description.hasPrefix(#"Scenario "bad.toml", line 2: "#) == true)
        }
    }

    /// Laying one table over another replaces values key by key and merges tables.
    @Test func mergingOverridesKeyByKey() throws {
        let base = try LocatedDocument(
            text: "[memory]\nwarning_enter = \"10%\"\nkill_foreground = true\n", file: "a.toml")
        let over = try LocatedDocument(text: "[memory]\nkill_foreground = false\n", file: "b.toml")
        let merged = base.root.merging(over.root)
        let memory = try #require(merged["memory"]?.table)
        #expect(memory["warning_enter"]?.string == "10%")
        #expect(memory["warning_enter"]?.file == "a.toml")
        #expect(memory["kill_foreground"]?.bool == false)
        #expect(memory["kill_foreground"]?.file == "b.toml")
        #expect(memory["kill_foreground"]?.line == 2)
    }
}
