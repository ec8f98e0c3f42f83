import ArgumentParser
import FoundationEssentials
import WardenAPI
import WardenCore
import WardenPlatform
import WardenRuntime
import WardenScenario

/// `appwarden export [--since TIME|DURATION] [--until TIME] [-o FILE] [--state-dir DIR]`: a
/// window of the journal as a scenario file that `appwarden simulate` replays.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a window of the journal as a scenario that simulate replays.",
        discussion: """
            Asks the running daemon over its socket, or reads a state directory copied off a device \
            with --state-dir, with no daemon running. The window starts at --since (default: the \
            daemon's last start) and ends at --until (default: the last event). The scenario holds \
            the policy in force inline, every input as a step, the memory figures and footprints of \
            the moments that decided something, and [expect] filled with what happened. Exits 0 when \
            written, 1 when the journal has nothing to export in the window or the file cannot be written, \
            3 when no daemon answers; with --json a failure is printed as {"error": ..., "message": ...}.
            """)
    @OptionGroup var client: ClientOptions
    @Option(help: "Read this state directory (holding appwarden.sqlite) instead of asking the daemon.")
    var stateDir: String?
    @Option(
        help: "Where the window starts: a UTC time such as 2026-11-23T03:00:00Z, or a duration before now (\"2h\").")
    var since: String?
    @Option(help: "Where the window ends: a UTC time such as 2026-11-23T04:00:00Z, or a duration before now.")
    var until: String?
    @Option(name: [.customShort("o"), .long], help: "Write the scenario to this file instead of standard output.")
    var output: String?

    func validate() throws {
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, Self.millis(value, now: 0) == nil {
                throw ValidationError(
                    "\(name) must be a UTC time such as 2026-11-23T03:00:00Z or a duration such as \"2h\", not \"\(value)\"."
                )
            }
        }
    }

    func run() async throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let export = ScenarioExport(
            since: since.flatMap { Self.millis($0, now: now) }, until: until.flatMap { Self.millis($0, now: now) })
        let entries: [JournalEntry]
        if let stateDir {
            entries = try await Self.entries(stateDirectory: stateDir, export: export)
        } else {
            entries = try await Self.entries(export: export) { query in
                try await client.call(ControlAPI.events, query: query.parameters)
            }
        }
        let text: String
        do {
            text = try export.scenario(from: entries)
        } catch {
            throw ClientExit.refused(reason: "notFound", error.message)
        }
        if let output {
            do {
                try FileText.writeAtomically(text, to: output)
            } catch {
                throw ClientExit.refused(
                    reason: "failed", "Could not write \"\(output)\": \(error)")
            }
        } else {
            print(text, terminator: "")
        }
    }

    /// A time as milliseconds since the epoch: RFC 3339 (with or without fractions), or a
    /// duration before `now`.
    static func millis(_ text: String, now: Int64) -> Int64? {
        if let duration = DurationFormat.parse(text), !text.hasPrefix("-") {
            return now - duration.milliseconds
        }
        for fractional in [false, true] {
            let style = Date.ISO8601FormatStyle(includingFractionalSeconds: fractional, timeZone: .gmt)
            if let date = try? style.parse(text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        return nil
    }

    /// What an export needs from a journal read page by page through `read`: the records about
    /// no single app (daemon starts and the policy in force before the window), then every entry
    /// of the window.
    static func entries(
        export: ScenarioExport, pageSize: Int = 10_000, read: (JournalQuery) async throws -> [JournalEntry]
    ) async throws -> [JournalEntry] {
        func all(_ query: JournalQuery) async throws -> [JournalEntry] {
            var query = query
            query.limit = pageSize
            var result: [JournalEntry] = []
            while true {
                let page = try await read(query)
                result += page
                guard page.count == pageSize, let last = page.last, last.wallTimeMillis <= export.until ?? .max
                else { return result }
                query.sinceID = last.id
            }
        }
        let system = try await all(JournalQuery(app: JournalEntry.systemApp))
        guard let origin = export.origin(of: system) else { return [] }
        let before = system.filter { $0.wallTimeMillis < origin }
        let window = try await all(JournalQuery(sinceMillis: origin))
        return before + window
    }

    /// The same from a state directory's journal, read in place.
    static func entries(stateDirectory: String, export: ScenarioExport) async throws -> [JournalEntry] {
        let path = stateDirectory + "/appwarden.sqlite"
        guard FileManager.default.fileExists(atPath: path) else {
            throw ClientExit.refused(
                reason: "notFound", "The state directory \"\(stateDirectory)\" holds no journal (appwarden.sqlite).")
        }
        let store = try JournalStore(path: path)
        defer { try? store.close() }
        return try await entries(export: export) { query in try store.entries(query) }
    }
}
