import Testing
import WardenCore

@Suite struct DeadlineQueueTests {
    private func at(_ seconds: Int64) -> Instant { Instant(sinceOrigin: .seconds(seconds)) }

    /// Entries come out by deadline, and entries with equal deadlines in the order they were scheduled.
    @Test func entriesComeOutByDeadlineThenInsertion() {
        var queue = DeadlineQueue<String>()
        queue.schedule("c", at: at(5))
        queue.schedule("a", at: at(1))
        queue.schedule("d", at: at(5))
        queue.schedule("b", at: at(3))
        queue.schedule("e", at: at(5))
        var order: [String] = []
        while let entry = queue.pop() { order.append(entry.element) }
        #expect(order == ["a", "b", "c", "d", "e"])
    }

    /// popDue returns only entries due at or before the limit.
    @Test func popDueStopsAtTheLimit() {
        var queue = DeadlineQueue<Int>()
        for second in [7, 2, 9, 4] { queue.schedule(second, at: at(Int64(second))) }
        var due: [Int] = []
        while let entry = queue.popDue(through: at(7)) { due.append(entry.element) }
        #expect(due == [2, 4, 7])
        #expect(queue.count == 1)
        #expect(queue.nextDeadline == at(9))
    }

    /// A large random schedule comes out sorted by (deadline, sequence).
    @Test func manyEntriesComeOutSorted() {
        var queue = DeadlineQueue<Int>()
        var generator = SystemRandomNumberGenerator()
        var expected: [(Int64, Int)] = []
        for index in 0..<2000 {
            let second = Int64.random(in: 0..<100, using: &generator)
            queue.schedule(index, at: at(second))
            expected.append((second, index))
        }
        expected.sort { $0 < $1 }
        var actual: [(Int64, Int)] = []
        while let entry = queue.pop() { actual.append((entry.deadline.sinceOrigin.components.seconds, entry.element)) }
        #expect(actual.map(\.1) == expected.map(\.1))
    }
}
