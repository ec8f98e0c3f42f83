import Foundation
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenScenario
import WardenSimulator

/// A week of 50 apps' journal in SQLite, exported as a scenario and replayed: the journal is
/// made by the core itself (a simulated week, its inputs and records written as the daemon
/// writes them), then read back page by page, exported, loaded and replayed.
enum ExportBenchmarks {
    static func run(runs: Int) throws {
        let directory = NSTemporaryDirectory() + "appwarden-export-benchmark-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (policyText, entries) = try week(apps: 50)
        let store = try JournalStore(path: directory + "/appwarden.sqlite")
        let writing = Stopwatch()
        for start in stride(from: 0, to: entries.count, by: 10_000) {
            _ = try store.append(Array(entries[start..<min(entries.count, start + 10_000)]))
        }
        print(
            "export: a week of 50 apps, \(entries.count) journal entries (policy \(policyText.count) bytes) "
                + "written to SQLite in \(format(writing.elapsedSeconds * 1000)) ms")
        let file = directory + "/week.toml"
        for round in 1...runs {
            let reading = Stopwatch()
            var read: [JournalEntry] = []
            var query = JournalQuery(limit: 10_000)
            while true {
                let page = try store.entries(query)
                read += page
                guard page.count == query.limit, let last = page.last else { break }
                query.sinceID = last.id
            }
            let readSeconds = reading.elapsedSeconds
            let exporting = Stopwatch()
            let text = try ScenarioExport().scenario(from: read)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let exportSeconds = exporting.elapsedSeconds
            let loading = Stopwatch()
            let scenario = try ScenarioLoader.load(path: file)
            let loadSeconds = loading.elapsedSeconds
            let replaying = Stopwatch()
            var simulator = Simulator(scenario: scenario, tracing: false)
            let result = simulator.run()
            let replaySeconds = replaying.elapsedSeconds
            print(
                "export run \(round): read \(read.count) entries \(format(readSeconds * 1000)) ms, "
                    + "export \(scenario.steps.count) steps (\(text.utf8.count / 1024) KiB) "
                    + "\(format(exportSeconds * 1000)) ms, load \(format(loadSeconds * 1000)) ms, replay "
                    + "\(result.eventCount) events \(format(replaySeconds * 1000)) ms; total "
                    + "\(format((readSeconds + exportSeconds + loadSeconds + replaySeconds) * 1000)) ms; "
                    + (result.passed ? "replay passed" : "REPLAY FAILED:\n\(result.diff)"))
        }
        try store.close()
    }

    /// A week of `count` apps as the daemon would journal it: fetches every 15–60 minutes, a
    /// silent push to every app every hour, the user opening a few apps each hour, memory
    /// pressure each hour.
    static func week(apps count: Int) throws -> (policy: String, entries: [NewJournalEntry]) {
        let names = (0..<count).map { "app\($0)" }
        var policyText = "foreground_slots = 1\n"
        for (index, name) in names.enumerated() {
            policyText += """
                [apps.\(name)]
                command = "/usr/bin/\(name)"
                background_modes = ["fetch", "remote-notification"]
                fetch_interval = "\(15 + (index % 4) * 15)m"

                """
        }
        let policy = try PolicyLoader.parse(policyText, file: "week.toml")
        var steps: [ScenarioStep] = []
        for hour in 0..<(7 * 24) {
            let base = Instant(sinceOrigin: .seconds(Int64(hour) * 3600))
            for (index, name) in names.enumerated() {
                let at = base + .seconds(Int64(index * 17 % 3600))
                let payload = #"{"aps":{"content-available":1},"id":"h\#(hour)-\#(index)"}"#
                steps.append(
                    ScenarioStep(time: at, verb: .event(.push(target: .app(name), payload: payload, id: nil))))
            }
            for pick in 0..<5 {
                let name = names[(hour * 37 + pick * 11) % count]
                steps.append(
                    ScenarioStep(time: base + .seconds(Int64(600 * pick + 30)), verb: .event(.open(app: name))))
                steps.append(ScenarioStep(time: base + .seconds(Int64(600 * pick + 300)), verb: .event(.home)))
            }
            let footprintApp = names[hour % count]
            steps.append(
                ScenarioStep(
                    time: base + .seconds(3598),
                    verb: .event(.footprint(app: footprintApp, bytes: Int64(64 + hour % 32) << 20))))
            steps.append(ScenarioStep(time: base + .seconds(3599), verb: .event(.pressure(.critical))))
            steps.append(ScenarioStep(time: base + .seconds(3599), verb: .event(.pressure(.normal))))
        }
        steps.sort { $0.time < $1.time }
        let scenario = Scenario(
            name: "week", policy: policy, until: Instant(sinceOrigin: .seconds(7 * 24 * 3600)), steps: steps)
        var simulator = Simulator(scenario: scenario)
        _ = simulator.run()
        let origin: Int64 = 1_800_000_000_000
        func millis(_ time: Instant) -> Int64 { origin + time.sinceOrigin.milliseconds }
        var entries: [NewJournalEntry] = [
            NewJournalEntry(
                app: JournalEntry.systemApp, event: .system(.daemonStarted(version: "benchmark", readopted: [])),
                wallTimeMillis: origin),
            NewJournalEntry(
                app: JournalEntry.systemApp, event: .input(.policy(path: "week.toml", text: policyText)),
                wallTimeMillis: origin),
        ]
        for entry in simulator.trace {
            let time = millis(entry.time)
            switch entry.kind {
            case .step(let step):
                guard case .event(let event) = step.verb else { continue }
                entries.append(
                    NewJournalEntry(
                        app: event.app ?? JournalEntry.systemApp,
                        event: .input(.step(JournalInput.stepText(of: event))),
                        wallTimeMillis: time))
            case .event(let event):
                switch event {
                case .completeFetch, .completePush, .endTask:
                    entries.append(
                        NewJournalEntry(
                            app: event.app ?? JournalEntry.systemApp,
                            event: .input(.step(JournalInput.stepText(of: event))), wallTimeMillis: time))
                default:
                    break
                }
            case .action(.journal(let record)):
                entries.append(NewJournalEntry(app: record.app, event: AppEvent(record.kind), wallTimeMillis: time))
            case .action(.publishStatus(let app, let status)):
                entries.append(NewJournalEntry(app: app, event: .status(status), wallTimeMillis: time))
            case .action(.deliver(let app, let message)):
                entries.append(NewJournalEntry(app: app, event: .message(message), wallTimeMillis: time))
            default:
                break
            }
        }
        return (policyText, entries)
    }
}
