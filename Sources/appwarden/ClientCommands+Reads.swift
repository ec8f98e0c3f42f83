import ArgumentParser
import FoundationEssentials
import WardenAPI
import WardenClient
import WardenCore
import WardenPlatform

/// `appwarden status`: a table of the apps.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show every app: state, status, footprint (what is swapped, what a kill frees), band, task time left, next wake."
    )
    @OptionGroup var client: ClientOptions
    @Argument(help: "Only this app.") var app: String?

    func run() async throws {
        try Self.show(app, through: client)
    }

    /// Prints the table of every app, or of `app`, as the daemon at `client` has them: one call,
    /// made on this thread.
    static func show(_ app: String?, through client: some ClientContext) throws(ClientExit) {
        let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
        if let app {
            let (info, answer) = try client.callNowKeepingAnswer(ControlAPI.app, [app])
            client.printAnswer(answer, text: Self.table([info], nowMillis: nowMillis))
        } else {
            let (apps, answer) = try client.callNowKeepingAnswer(ControlAPI.apps)
            client.printAnswer(answer, text: Self.table(apps, nowMillis: nowMillis))
        }
    }

    /// `status [APP] [--json] [--socket PATH]` read without the argument parser
    /// (`QuickCommandLine`): the app (if one is named) and the session. Nil for any other command
    /// line, which the parser reads.
    static func quickArguments(_ arguments: ArraySlice<String>) -> (app: String?, session: ClientSession)? {
        guard arguments.first == "status", let line = QuickCommandLine(arguments), line.app == nil,
            line.words.count <= 2
        else { return nil }
        return (line.words.dropFirst().first, line.session)
    }

    /// A span of milliseconds in whole seconds, minutes and hours: `45s`, `14m58s`, `2h05m`.
    static func span(_ milliseconds: Int64) -> String {
        let seconds = (milliseconds + 999) / 1000
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(twoDigits(seconds % 60))s" }
        return "\(seconds / 3600)h\(twoDigits(seconds / 60 % 60))m"
    }

    /// `7` as `07`; without Foundation's `String(format:)`, which a table of a thousand apps
    /// called a thousand times.
    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// How much of a running app's footprint is in swap (compression, or the kernel), or `-`
    /// when none is or the app is not running.
    static func swapped(_ app: AppInfo) -> String {
        app.state == .notRunning || app.swappedBytes <= 0 ? "-" : DurationFormat.sizeString(app.swappedBytes)
    }

    /// What a kill of a running app would give back at once, when it differs from the footprint
    /// (part of it in swap); `-` otherwise.
    static func reclaimable(_ app: AppInfo) -> String {
        app.state == .notRunning || app.reclaimableBytes == app.footprintBytes
            ? "-" : DurationFormat.sizeString(app.reclaimableBytes)
    }

    /// The CPU class as the tables show it: `fg`, `bg` or `act` (an activity); `-` for an app
    /// that does not run.
    static func cpuClass(_ app: AppInfo) -> String {
        switch app.cpuClass {
        case "foreground": "fg"
        case "background": "bg"
        case "activity": "act"
        default: "-"
        }
    }

    /// The CPU cell of `status`: the class and the CPU time the running launch has used, such as
    /// `fg 12.5s` (a suspended app shows its class alone).
    static func cpu(_ app: AppInfo) -> String {
        let cpuClass = cpuClass(app)
        guard cpuClass != "-", let millis = app.cpuTimeMillis else { return cpuClass }
        return "\(cpuClass) \(DurationFormat.string(.milliseconds(millis)))"
    }

    /// The STATE cell: the state and, for an app in a fetch, push or accessory window, which and
    /// how long it has left, such as `background (accessory window, 12s left)`.
    static func state(_ app: AppInfo, nowMillis: Int64) -> String {
        guard !app.windows.isEmpty else { return app.state.rawValue }
        let notes = app.windows.map { window in
            "\(window.kind) window" + (window.endMillis.map { ", \(Self.span(max(0, $0 - nowMillis))) left" } ?? "")
        }
        return "\(app.state.rawValue) (\(notes.joined(separator: "; ")))"
    }

    /// The TASKS cell: the open tasks as `ID:NAME`, then the activities held as `activity ID:MODE`;
    /// `-` for none.
    static func tasks(_ app: AppInfo) -> String {
        let cells =
            app.openTasks.map { "\($0.id):\($0.name)" } + app.activities.map { "activity \($0.id):\($0.mode)" }
        return cells.isEmpty ? "-" : cells.joined(separator: ",")
    }

    /// The table, one row per app, columns padded to their widest cell.
    static func table(_ apps: [AppInfo], nowMillis: Int64) -> String {
        var rows = [
            [
                "APP", "STATE", "STATUS", "FOOTPRINT", "SWAPPED", "KILL FREES", "BAND", "CPU", "TIME LEFT", "NEXT WAKE",
                "TASKS",
            ]
        ]
        for app in apps {
            rows.append([
                app.name + (app.forceQuit ? " (force-quit)" : ""),
                Self.state(app, nowMillis: nowMillis),
                app.status.rawValue,
                app.state == .notRunning ? "-" : DurationFormat.sizeString(app.footprintBytes),
                Self.swapped(app),
                Self.reclaimable(app),
                app.band?.rawValue ?? "-",
                Self.cpu(app),
                app.timeRemainingMillis.map(Self.span) ?? "-",
                app.nextWakeMillis.map { "in " + Self.span(max(0, $0 - nowMillis)) } ?? "-",
                Self.tasks(app),
            ])
        }
        // Written as UTF-8 into one buffer sized once, each cell measured once: a thousand rows.
        let counts = rows.map { $0.map(Self.columns) }
        let widths = rows[0].indices.map { column in counts.map { $0[column] }.max() ?? 0 }
        var text: [UInt8] = []
        text.reserveCapacity(rows.count * (widths.reduce(0, +) + 2 * widths.count + 1))
        for (index, row) in rows.enumerated() {
            if index > 0 { text.append(UInt8(ascii: "\n")) }
            for (column, cell) in row.enumerated() {
                text.append(contentsOf: cell.utf8)
                if column < row.count - 1 {
                    text.append(
                        contentsOf: repeatElement(UInt8(ascii: " "), count: widths[column] - counts[index][column] + 2))
                }
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// How many columns a cell takes: its characters, counted byte by byte where all are ASCII.
    private static func columns(_ cell: String) -> Int {
        cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count
    }
}

/// `appwarden explain APP`: why the app is in its state.
struct ExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain an app: why it is in its state, why it did or did not run, why it was killed.")
    @OptionGroup var client: ClientOptions
    @Argument(help: "The app.") var app: String

    func run() async throws {
        let explanation = try await client.call(ControlAPI.explain, [app])
        let text = (["\(explanation.app) is \(explanation.state)."] + explanation.sentences.map { "  " + $0 })
            .joined(separator: "\n")
        client.output(explanation, text: text)
    }
}

/// `appwarden events [--app APP] [--kind KIND] [--since ID|DURATION] [--limit N]`: the journal.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Print the newest entries of the event journal, oldest first.",
        discussion: """
            It prints the newest 1000 entries that match (--limit N for another number), oldest first, \
            and says on standard error when older entries matched too. The policy journaled at each start \
            and reload (input policy) shows its size, lines and SHA-256 prefix; --full prints its whole \
            text, and --json and export carry it whole.
            """)
    @OptionGroup var client: ClientOptions
    @Option(help: "Only this app's events (\"appwarden\" for the device's own records).") var app: String?
    @Option(help: "Only events of this kind: \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var kind: String?
    @Option(help: "Only events after this id (a number) or within this duration (\"10m\", \"2h\").") var since: String?
    @Option(help: "At most this many events, the newest (default 1000, at most 100000).") var limit: Int?
    @Flag(help: "Print a journaled policy's whole text, not its size and SHA-256 prefix.") var full = false

    /// How many entries are printed without `--limit`.
    static let defaultLimit = 1000

    /// The most entries the daemon answers a request with, and so the largest `--limit`.
    static let largestLimit = 100_000

    func validate() throws {
        if let since, Int64(since) == nil, DurationFormat.parse(since) == nil {
            throw ValidationError(
                "--since must be an event id such as 42 or a duration such as \"10m\", not \"\(since)\".")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit).") }
        if let limit, limit > Self.largestLimit {
            throw ValidationError(
                "--limit must be at most \(Self.largestLimit), the most the daemon answers at once, not \(limit); "
                    + "narrow the events with --since, --app or --kind.")
        }
        if let kind, EventKind(rawValue: kind) == nil {
            throw ValidationError(
                "--kind must be one of \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(kind)\".")
        }
    }

    func run() async throws {
        var query = JournalQuery(app: app, kind: kind.flatMap(EventKind.init(rawValue:)))
        if let since {
            if let id = Int64(since) {
                query.sinceID = id
            } else if let duration = DurationFormat.parse(since) {
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                query.sinceMillis = max(0, now - duration.milliseconds)
            }
        }
        // The newest N, still printed oldest first; one more is asked for to tell whether older
        // ones matched, except at the daemon's largest answer, where a full answer may hide more.
        let shown = limit ?? Self.defaultLimit
        query.limit = min(shown + 1, Self.largestLimit)
        query.newest = true
        var entries = try await client.call(ControlAPI.events, query: query.parameters)
        var notice: String?
        if entries.count > shown {
            entries.removeFirst(entries.count - shown)
            notice =
                "appwarden: older events matched too; these are the newest \(shown). "
                + "Narrow them with --since, --app or --kind, or raise --limit.\n"
        } else if entries.count == Self.largestLimit {
            notice =
                "appwarden: these are the newest \(shown), the most the daemon answers at once; older events "
                + "may have matched too. Narrow them with --since, --app or --kind.\n"
        }
        if let notice { StandardStream.error.write(notice) }
        client.output(entries, text: entries.map { EntryLine.text($0, full: full) }.joined(separator: "\n"))
    }
}

/// `appwarden watch [--app APP]`: the live event stream, across daemon restarts.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow the event journal live until interrupted, across daemon restarts.",
        discussion: """
            When the daemon goes away (a restart) it says so on standard error, waits for the daemon to \
            come back and goes on after the last event it printed, so that no event is missed or printed \
            twice. A journaled policy shows its size, lines and SHA-256 prefix (--full: its text). It \
            exits 3 at once when the socket does not exist or the path is not a socket (a \
            directory, a regular file), and when no daemon answers on it \
            within 10 seconds of starting (saying on standard error that it waits).
            """)
    @OptionGroup var client: ClientOptions
    @Option(help: "Only this app's events.") var app: String?
    @Option(help: "Only events of this kind: \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var kind: String?
    @Option(help: "First replay the stored events after this id, then follow.") var since: Int64?
    @Flag(help: "Print a journaled policy's whole text, not its size and SHA-256 prefix.") var full = false

    func validate() throws {
        if let kind, EventKind(rawValue: kind) == nil {
            throw ValidationError(
                "--kind must be one of \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(kind)\".")
        }
    }

    func run() async throws {
        try await follow(
            client, JournalQuery(app: app, kind: kind.flatMap(EventKind.init(rawValue:)), sinceID: since), full: full)
    }
}

/// Prints every entry of a live stream, one line each (JSON lines with `--json`), following it
/// across daemon restarts with a line on standard error when the connection drops and when it
/// is back. A journaled policy shows its text's digest unless `full` is set.
func follow(_ client: ClientOptions, _ query: JournalQuery, full: Bool = false) async throws {
    let socket = client.socketPath
    // A socket that does not exist is most often a wrong path: say so at once rather than wait.
    guard FileManager.default.fileExists(atPath: socket) else {
        throw ClientExit.unreachable(
            socket,
            WardenClientError(
                .connection,
                "no such socket file. Start appwarden serve, or name its socket with --socket or APPWARDEN_SOCKET."))
    }
    if let other = WardenConnection.notASocket(socket) {
        throw ClientExit.unreachable(socket, WardenClientError(.connection, other))
    }
    if (try? await WardenConnection(socketPath: socket, retry: .once).call(ControlAPI.health)) == nil {
        StandardStream.error.write(
            "appwarden: no daemon answers at \(socket) yet; waiting up to 10 seconds for one.\n")
    }
    let stream = WardenConnection(socketPath: socket).events(query) { change in
        let line: String
        switch change {
        case .lost(let error):
            line = "appwarden: lost the daemon at \(socket) (\(error.message)); waiting for it to come back."
        case .restored(let after):
            line =
                "appwarden: connected to the daemon at \(socket) again; following "
                + (after.map { "from after event #\($0)." } ?? "from where it stopped.")
        }
        StandardStream.error.write(line + "\n")
    }
    do {
        for try await entry in stream {
            let line = client.json ? JSONOutput.text(entry) : EntryLine.text(entry, full: full)
            StandardStream.output.write(line + "\n")
        }
    } catch let error as WardenClientError where error.code == .refused {
        throw ClientExit.refused(reason: error.reason ?? "refused", error.message)
    } catch let error as WardenClientError {
        throw ClientExit.unreachable(client.socketPath, error)
    }
}

/// One journal entry as a line: time, id, app, kind, name and properties.
enum EntryLine {
    /// The line; a journaled policy shows its text's digest unless `full` is set.
    static func text(_ entry: JournalEntry, full: Bool = false) -> String {
        let properties = shownProperties(entry, full: full).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return
            ([Explanation.timestamp(entry.wallTimeMillis), "#\(entry.id)", entry.app, entry.kind, entry.name]
            + properties)
            .joined(separator: "  ")
    }
}

extension String {
    /// The string with spaces after it up to `width` characters (Foundation's `padding(toLength:)`
    /// bridges every cell, which a table of a thousand apps feels).
    func padded(to width: Int) -> String {
        let count = self.count
        return count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
