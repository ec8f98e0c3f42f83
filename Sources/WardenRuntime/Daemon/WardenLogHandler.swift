import FoundationEssentials
public import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's log lines: an RFC 3339 UTC timestamp with milliseconds, the level, the label,
/// the message and any metadata, one line each on standard error.
///
/// `2026-11-23T01:16:19.042Z info appwarden: Launched app "mail" (launch 1, user) as process 4242 in 3 ms.`
/// swift-log's own stream handler prints local time to the second, which cannot order the
/// events of one busy second or line them up with the journal's millisecond times.
///
/// When standard error is the systemd journal's stream (`JOURNAL_STREAM`), lines take the
/// sd-daemon form instead: the syslog priority in angle brackets and no time of their own, which
/// the journal adds (`<6>Launched app "mail" …`, `<4>` for a warning, `<3>` for an error).
public struct WardenLogHandler: LogHandler {
    /// How lines are written.
    public enum Format: Sendable, Equatable {
        /// Timestamp, level, label, message: for a terminal or a file.
        case plain
        /// `<priority>` then the message (after the label when it is not `appwarden`): for the journal.
        case journal
    }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// The logger's label, printed after the level.
    public let label: String
    /// How lines are written.
    public let format: Format
    private let write: @Sendable (String) -> Void

    /// Makes a handler for `label` that hands each finished line (with its newline) to `write`,
    /// by default to standard error with one `write(2)` per line.
    public init(
        label: String, format: Format = .plain,
        write: @escaping @Sendable (String) -> Void = WardenLogHandler.writeToStandardError
    ) {
        self.label = label
        self.format = format
        self.write = write
    }

    /// `.journal` when `journalStream` (the value of `JOURNAL_STREAM`, "DEVICE:INODE") names the
    /// file `descriptor` is open on, as systemd sets it for a service whose output goes to the
    /// journal; `.plain` otherwise (a terminal, a file, or output redirected by a child).
    /// `descriptor` is standard error (2) unless a test names another.
    public static func format(journalStream: String?, descriptor: Int32 = 2) -> Format {
        guard let journalStream else { return .plain }
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
            let open = FileIdentity.of(descriptor: descriptor)
        else { return .plain }
        return open == FileIdentity(device: device, inode: inode) ? .journal : .plain
    }

    /// The syslog priority of a level, as sd-daemon's prefixes give it.
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        if format == .journal {
            write(Self.journalLine(level: event.level, label: label, message: "\(event.message)", metadata: merged))
            return
        }
        let now = Date().timeIntervalSince1970
        write(
            Self.line(
                millisecondsSinceEpoch: Int64((now * 1000).rounded(.down)), level: event.level, label: label,
                message: "\(event.message)", metadata: merged))
    }

    /// One line for the journal, newline included: `<priority>`, the label unless it is
    /// `appwarden` (the journal names the service), the message (on one line) and any metadata.
    public static func journalLine(
        level: Logger.Level, label: String, message: String, metadata: Logger.Metadata = [:]
    ) -> String {
        let details =
            metadata.isEmpty
            ? "" : " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let source = label == "appwarden" ? "" : "\(label): "
        let text = message.replacing("\n", with: " ")
        return "<\(priority(of: level))>\(source)\(text)\(details)\n"
    }

    /// One log line, newline included.
    public static func line(
        millisecondsSinceEpoch: Int64, level: Logger.Level, label: String, message: String,
        metadata: Logger.Metadata = [:]
    ) -> String {
        let details =
            metadata.isEmpty
            ? "" : " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(timestamp(millisecondsSinceEpoch: millisecondsSinceEpoch)) \(level) \(label): \(message)\(details)\n"
    }

    /// `2026-11-23T01:16:19.042Z`: RFC 3339 in UTC with milliseconds (`gmtime_r`).
    public static func timestamp(millisecondsSinceEpoch milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2)
            + "T" + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2) + "."
            + padded(Int32(millis), 3) + "Z"
    }

    /// Writes `line` to standard error in one call, so that lines from several tasks do not interleave.
    public static let writeToStandardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

extension Int64 {
    /// The quotient rounded towards negative infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
