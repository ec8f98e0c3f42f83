import Foundation
import FoundationXML

/// The parts of a JUnit report the tests look at, read with Foundation's `XMLParser`.
final class JUnitReader: NSObject, XMLParserDelegate {
    /// A `<failure>` or `<error>`: the index of its test case, its message and its text.
    struct Finding: Equatable {
        var testCase: Int
        var message: String
        var text: String
    }

    /// Each `<testsuite>`'s counts.
    private(set) var suites: [[String: String]] = []
    /// Each `<testcase>`'s attributes.
    private(set) var cases: [[String: String]] = []
    private(set) var failures: [Finding] = []
    private(set) var errors: [Finding] = []
    /// Each test case's `<system-out>`, by its index.
    private(set) var output: [Int: String] = [:]
    private var text = ""
    private var message = ""

    /// The report in `data`; nil when it is not well-formed XML.
    static func read(_ data: Data) -> JUnitReader? {
        let reader = JUnitReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        return parser.parse() ? reader : nil
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        text = ""
        switch elementName {
        case "testsuite":
            suites.append(attributes.filter { ["tests", "failures", "errors"].contains($0.key) })
        case "testcase":
            cases.append(attributes)
        case "failure", "error":
            message = attributes["message"] ?? ""
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        switch elementName {
        case "failure": failures.append(Finding(testCase: cases.count - 1, message: message, text: text))
        case "error": errors.append(Finding(testCase: cases.count - 1, message: message, text: text))
        case "system-out": output[cases.count - 1] = text
        default: break
        }
    }
}
