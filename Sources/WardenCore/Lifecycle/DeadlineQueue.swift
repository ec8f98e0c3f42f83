/// A queue of things due at given instants: a binary min-heap ordered by (deadline, insertion
/// sequence), so that entries due at the same instant come out in the order they were
/// scheduled. The daemon keeps the core's timers in one, and the simulator everything due in
/// virtual time.
public struct DeadlineQueue<Element: Sendable>: Sendable {
    /// One scheduled element.
    public struct Entry: Sendable {
        public var deadline: Instant
        /// Increases with every `schedule`; breaks ties between equal deadlines.
        public var sequence: UInt64
        public var element: Element
        /// The deadline in nanoseconds, compared without going through `Duration`.
        var key: Int64
    }

    /// A heap node: the order and where the entry is kept. Nodes hold no references, so
    /// moving them up and down the heap is plain copying.
    private struct Node {
        var key: Int64
        var sequence: UInt64
        var slot: Int
    }

    private var heap: [Node] = []
    /// The scheduled entries, at the slots their nodes name; nil slots are free.
    private var entries: [Entry?] = []
    private var freeSlots: [Int] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    /// How many entries are waiting.
    public var count: Int { heap.count }

    public var isEmpty: Bool { heap.isEmpty }

    /// The earliest deadline, if any entry is waiting.
    public var nextDeadline: Instant? { heap.first.flatMap { entries[$0.slot]?.deadline } }

    /// The earliest entry, left in the queue; nil when it is empty.
    public var first: Entry? { heap.first.flatMap { entries[$0.slot] } }

    /// Adds `element` due at `deadline`; returns its sequence number.
    @discardableResult
    public mutating func schedule(_ element: Element, at deadline: Instant) -> UInt64 {
        let sequence = nextSequence
        nextSequence &+= 1
        let key = Self.key(deadline)
        let entry = Entry(deadline: deadline, sequence: sequence, element: element, key: key)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            entries[slot] = entry
        } else {
            slot = entries.count
            entries.append(entry)
        }
        heap.append(Node(key: key, sequence: sequence, slot: slot))
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
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        let entry = entries[first.slot].take()
        freeSlots.append(first.slot)
        return entry
    }

    private static func precedes(_ lhs: Node, _ rhs: Node) -> Bool {
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
