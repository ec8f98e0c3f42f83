import Testing
import WardenCore
import WardenScenario
import WardenSimulator

@Suite struct JUnitReportTests {
    static func run(file: String, name: String, killOrder: [String]) throws -> ScenarioRun {
        let text = """
            [scenario]
            name = "\(name)"
            steps = ["0s open mail", "1s open maps", "10s home", "20s pressure critical"]

            [apps.mail]
            footprint = "150MiB"

            [apps.maps]
            footprint = "900MiB"

            [expect]
            kill_order = [\(killOrder.map { "\"\($0)\"" }.joined(separator: ", "))]
            """
        var simulator = Simulator(scenario: try ScenarioLoader.parse(text: text, file: file))
        return ScenarioRun(file: file, outcome: .success(simulator.run()), duration: .milliseconds(1234))
    }

    /// Counts, times in seconds and a failure whose message keeps its line breaks as character
    /// references and escapes quotes, ampersands and angle brackets; characters XML 1.0 cannot
    /// carry become U+FFFD.
    @Test func reportEscapesWhatXMLRequires() throws {
        let passing = try Self.run(file: "a&b.toml", name: "maps goes", killOrder: ["maps"])
        let failing = try Self.run(file: "<fail>.toml", name: #"bell \u0007 \"quoted\""#, killOrder: ["mail"])
        let invalid = ScenarioRun(
            file: "bad.toml", outcome: .failure(ScenarioError(file: "bad.toml", line: 3, message: "one\ttwo")),
            duration: .microseconds(500))
        let xml = JUnitReport(runs: [passing, failing, invalid]).xml
        #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"))
        #expect(
            xml.contains(
                #"<testsuite name="appwarden.simulate" tests="3" failures="1" errors="1" skipped="0" time="2.468">"#))
        #expect(
            xml.contains(
                #"<testcase classname="appwarden.simulate" name="a&amp;b.toml" file="a&amp;b.toml" time="1.234">"#))
        #expect(xml.contains(#"name="&lt;fail&gt;.toml""#))
        #expect(
            xml.contains(
                #"<failure message="kill_order differs at index 0: expected &quot;mail&quot;, got &quot;maps&quot;.&#10;  expected: [&quot;mail&quot;]&#10;  actual:   [&quot;maps&quot;]" type="expectation">"#
            ))
        #expect(
            xml.contains(
                "<system-out>FAIL &lt;fail&gt;.toml: bell \u{FFFD} \"quoted\" (1 of 1 expectations do not hold)</system-out>"
            ))
        #expect(xml.contains(#"<error message="Scenario &quot;bad.toml&quot;, line 3: one&#9;two" type="invalid">"#))
        #expect(xml.contains(#"time="0.000">"#))
        #expect(!xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
    }
}
