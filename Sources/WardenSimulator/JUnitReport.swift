import WardenScenario

/// Scenario runs as a JUnit XML report (`appwarden simulate --junit FILE`), the format CI
/// servers read test results in.
///
/// One `<testcase>` per file, with the class name `appwarden.simulate`, the file as named for its
/// name, and the time of the replay in seconds; a file whose expectations do not all hold carries a
/// `<failure>` whose message is the diff, an invalid file an `<error>` whose message names every
/// problem. The verdict line, with the scenario's name, is the case's `<system-out>`.
public struct JUnitReport: Sendable {
    /// The runs, in the order they are reported.
    public var runs: [ScenarioRun]

    public init(runs: [ScenarioRun]) {
        self.runs = runs
    }

    /// The class name every case carries.
    public static let className = "appwarden.simulate"

    /// The XML document, ending with a newline.
    public var xml: String {
        let failures = runs.count { $0.result.map { !$0.passed } ?? false }
        let errors = runs.count { $0.error != nil }
        let time = Self.seconds(runs.reduce(Duration.zero) { $0 + $1.duration })
        let counts =
            "tests=\"\(runs.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"\(time)\""
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            "<testsuites name=\"appwarden simulate\" \(counts)>",
            "  <testsuite name=\"\(Self.className)\" \(counts)>",
        ]
        for run in runs {
            let attributes =
                "classname=\"\(Self.className)\" name=\"\(Self.attribute(run.file))\" "
                + "file=\"\(Self.attribute(run.file))\" time=\"\(Self.seconds(run.duration))\""
            lines.append("    <testcase \(attributes)>")
            switch run.outcome {
            case .success(let result) where !result.passed:
                lines.append(
                    "      <failure message=\"\(Self.attribute(result.diff))\" type=\"expectation\">"
                        + Self.text(result.diff) + "</failure>")
            case .success:
                break
            case .failure(let error):
                lines.append(
                    "      <error message=\"\(Self.attribute(error.description))\" type=\"invalid\">"
                        + Self.text(error.description) + "</error>")
            }
            lines.append("      <system-out>\(Self.text(run.verdictLine))</system-out>")
            lines.append("    </testcase>")
        }
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `duration` in seconds with three decimals, such as `0.012`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let millis = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `string` as element text: `&`, `<` and `>` escaped, characters XML cannot carry replaced.
    static func text(_ string: String) -> String {
        escaped(string, inAttribute: false)
    }

    /// `string` as a double-quoted attribute value: quotes escaped too, and line breaks and tabs
    /// as character references, which attribute-value normalization would otherwise turn into spaces.
    static func attribute(_ string: String) -> String {
        escaped(string, inAttribute: true)
    }

    private static func escaped(_ string: String, inAttribute: Bool) -> String {
        var output = ""
        output.reserveCapacity(string.utf8.count)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"" where inAttribute: output += "&quot;"
            case "\n" where inAttribute: output += "&#10;"
            case "\r": output += "&#13;"
            case "\t" where inAttribute: output += "&#9;"
            case "\n", "\t": output.unicodeScalars.append(scalar)
            default:
                // XML 1.0 has no way to write other control characters, nor U+FFFE and U+FFFF.
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    output += "\u{FFFD}"
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output
    }
}
