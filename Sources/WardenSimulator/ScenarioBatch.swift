/// Many scenario files replayed side by side, their results handed back in the order given.
public enum ScenarioBatch {
    /// Calls `work` on each of `files`, on up to `width` tasks at a time, and `report` with each
    /// result in the order of `files`: a result is reported as soon as it and every one before it
    /// are done, so a long list prints as it goes.
    ///
    /// `work` runs on the tasks of a task group; a width of the machine's core count keeps every
    /// core busy with replays that never wait.
    public static func run<Output: Sendable>(
        _ files: [String], width: Int, work: @escaping @Sendable (String) -> Output,
        report: (Int, Output) -> Void
    ) async {
        await withTaskGroup(of: (Int, Output).self) { group in
            var started = 0
            func startNext() {
                guard started < files.count else { return }
                let index = started
                let file = files[index]
                group.addTask { (index, work(file)) }
                started += 1
            }
            for _ in 0..<max(1, width) { startNext() }
            var finished: [Int: Output] = [:]
            var reported = 0
            while let (index, output) = await group.next() {
                finished[index] = output
                while let next = finished.removeValue(forKey: reported) {
                    report(reported, next)
                    reported += 1
                }
                startNext()
            }
        }
    }
}
