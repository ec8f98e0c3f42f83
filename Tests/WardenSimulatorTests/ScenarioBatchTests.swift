import Synchronization
import Testing
import WardenScenario
import WardenSimulator

@Suite struct ScenarioBatchTests {
    /// Files are worked on side by side, never more than the width at once, and every result is
    /// reported once, in the order the files were given.
    @Test func filesRunSideBySideAndAreReportedInOrder() async {
        let running = Mutex(0)
        let most = Mutex(0)
        let files = (0..<12).map { "day\($0).toml" }
        var reported: [(Int, String)] = []
        await ScenarioBatch.run(
            files, width: 2,
            work: { file in
                let now = running.withLock { count in
                    count += 1
                    return count
                }
                most.withLock { $0 = max($0, now) }
                // Give a second file a moment to start beside this one.
                let clock = ContinuousClock()
                let deadline = clock.now + .milliseconds(20)
                while most.withLock({ $0 }) < 2, clock.now < deadline {}
                running.withLock { $0 -= 1 }
                return file.uppercased()
            },
            report: { index, output in reported.append((index, output)) })
        #expect(reported.map(\.0) == Array(0..<12))
        #expect(reported.map(\.1) == files.map { $0.uppercased() })
        // Never more than the width at once; whether a second file ran beside the first depends on
        // the threads the machine has free, which a test must not hang on.
        #expect((1...2).contains(most.withLock { $0 }))
    }
}
