/// Why a TOML text cannot be read: where the reader stopped and what is wrong there.
///
/// Its description reads `line 4, column 9: expected "=" after the key, found "x".`
struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line.
    var line: Int
    /// The 1-based column, counted in Unicode scalars from the start of the line.
    var column: Int
    /// What is wrong, as a sentence without its final period:
    /// `a string is not closed before the end of the line`.
    var reason: String

    var description: String {
        "line \(line), column \(column): \(reason)."
    }
}
