/// The verdict on one expectation: a list key of `[expect]`, or one `at` entry.
public struct ExpectationCheck: Sendable, Equatable {
    /// `kill_order`, `terminations`, `analytics`, `status` or `at`.
    public var key: String
    /// What the scenario expects (for `at`: the one entry).
    public var expected: [String]
    /// What the run produced (for `at`: the state found).
    public var actual: [String]

    public init(key: String, expected: [String], actual: [String]) {
        self.key = key
        self.expected = expected
        self.actual = actual
    }

    /// Whether the expectation holds.
    public var holds: Bool { expected == actual }

    /// The first index at which the lists differ, nil when they are equal.
    public var firstDifference: Int? {
        guard !holds else { return nil }
        var index = 0
        while index < expected.count, index < actual.count, expected[index] == actual[index] { index += 1 }
        return index
    }

    /// A readable account of the difference: the first differing index and both lists.
    public var diff: String {
        guard let index = firstDifference else { return "\(key): holds" }
        if key == "at" {
            return "at \"\(expected.first ?? "")\": the state was \(actual.first ?? "unknown")."
        }
        let expectedItem = index < expected.count ? "\"\(expected[index])\"" : "nothing more"
        let actualItem = index < actual.count ? "\"\(actual[index])\"" : "nothing more"
        return """
            \(key) differs at index \(index): expected \(expectedItem), got \(actualItem).
              expected: \(Self.list(expected))
              actual:   \(Self.list(actual))
            """
    }

    static func list(_ items: [String]) -> String {
        "[" + items.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }
}
