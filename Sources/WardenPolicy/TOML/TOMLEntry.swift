/// A value and the line it is written on: the line of its key, or, for an array element, the
/// line on which the element starts.
struct TOMLEntry: Sendable, Equatable {
    var value: TOMLValue
    var line: Int
}
