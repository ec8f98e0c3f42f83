public import WardenCore

/// A virtual-time queue of things due at given instants: a binary min-heap ordered by
/// (deadline, insertion sequence), so that entries due at the same instant come out in the
/// order they were scheduled.
public struct TimerQueue<Element: Sendable>: Sendable {
    /// One scheduled element.
    public struct Entry: Sendable {
        public var deadline: Instant
        /// Increases with every `schedule`; breaks ties between equal deadlines.
        public var sequence: UInt64
        public var element: Element
        /// The deadline in nanoseconds, compared without going through `Duration`.
        var key: Int64
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    /// How many entries are waiting.
    public var count: Int { heap.count }

    public var isEmpty: Bool { heap.isEmpty }

    /// The earliest deadline, if any entry is waiting.
    public var nextDeadline: Instant? { heap.first?.deadline }

    /// Adds `element` due at `deadline`; returns its sequence number.
    @discardableResult
    public mutating func schedule(_ element: Element, at deadline: Instant) -> UInt64 {
        let sequence = nextSequence
        nextSequence &+= 1
        heap.append(Entry(deadline: deadline, sequence: sequence, element: element, key: Self.key(deadline)))
        siftUp(heap.count - 1)
        return sequence
    }

    /// Removes and returns the earliest entry if it is due at or before `limit`.
    public mutating func popDue(through limit: Instant) -> Entry? {
        guard let first = heap.first, first.key <= Self.key(limit) else { return nil }
        return pop()
    }

    /// Removes and returns the earliest entry.
    public mutating func pop() -> Entry? {
        guard !heap.isEmpty else { return nil }
        if heap.count == 1 { return heap.removeLast() }
        let first = heap[0]
        heap[0] = heap.removeLast()
        siftDown(0)
        return first
    }

    private static func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        lhs.key != rhs.key ? lhs.key < rhs.key : lhs.sequence < rhs.sequence
    }

    /// Nanoseconds since the origin, saturating far beyond any simulated span (±292 years).
    static func key(_ instant: Instant) -> Int64 {
        let (seconds, attoseconds) = instant.sinceOrigin.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled &+ attoseconds / 1_000_000_000
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(entry, heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let entry = heap[parent]
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            var child = left
            if right < count, Self.precedes(heap[right], heap[left]) { child = right }
            guard Self.precedes(heap[child], entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }
}
