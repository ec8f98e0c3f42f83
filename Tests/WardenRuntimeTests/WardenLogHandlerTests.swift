import Foundation
import Logging
import Synchronization
import Testing

@testable import WardenRuntime

/// The daemon's log lines carry millisecond UTC timestamps.
@Suite struct WardenLogHandlerTests {
    /// A known instant prints as RFC 3339 UTC with three digits of milliseconds, before and after the epoch.
    @Test func timestampsAreRFC3339UTCWithMilliseconds() {
        #expect(WardenLogHandler.timestamp(millisecondsSinceEpoch: 1_795_395_379_042) == "2026-11-23T00:56:19.042Z")
        #expect(WardenLogHandler.timestamp(millisecondsSinceEpoch: 0) == "1970-01-01T00:00:00.000Z")
        #expect(WardenLogHandler.timestamp(millisecondsSinceEpoch: -1) == "1969-12-31T23:59:59.999Z")
    }

    /// A message logged through a Logger comes out as one line: timestamp, level, label, message, metadata.
    @Test func loggedLinesCarryTheTimestampLevelLabelAndMetadata() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "app"] = "mail"
        logger.warning("Could not set oom_score_adj.", metadata: ["score": "900"])
        let line = try #require(lines.withLock { $0.first })
        let pattern =
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warning appwarden: Could not set oom_score_adj\. app=mail score=900\n$/
        #expect(line.wholeMatch(of: pattern) != nil, "unexpected line \(line)")
    }

    /// For the journal a line carries the sd-daemon priority and no time of its own; the label
    /// `appwarden` is left to the journal's own name for the service.
    @Test func journalLinesCarryThePriorityAndNoTimestamp() throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label, format: .journal) { line in lines.withLock { $0.append(line) } }
        }
        logger.info("Launched app \"mail\".")
        logger.warning("Could not set oom_score_adj.", metadata: ["app": "mail"])
        logger.error("The policy was not reloaded:\nline 2")
        #expect(
            lines.withLock { $0 } == [
                "<6>Launched app \"mail\".\n", "<4>Could not set oom_score_adj. app=mail\n",
                "<3>The policy was not reloaded: line 2\n",
            ])
        #expect(
            WardenLogHandler.journalLine(level: .info, label: "appwarden.control", message: "x")
                == "<6>appwarden.control: x\n")
    }

    /// The journal's form is chosen only when `JOURNAL_STREAM` names the file standard error is
    /// open on, as systemd sets it; otherwise (unset, malformed, another file) lines stay plain.
    @Test func journalFormatIsChosenOnlyWhenTheStreamMatches() throws {
        let path = NSTemporaryDirectory() + "appwarden-journal-stream-\(getpid())"
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        #expect(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        let identity = try #require(FileIdentity.of(descriptor: descriptor))
        let stream = "\(identity.device):\(identity.inode)"
        #expect(WardenLogHandler.format(journalStream: stream, descriptor: descriptor) == .journal)
        #expect(WardenLogHandler.format(journalStream: nil, descriptor: descriptor) == .plain)
        #expect(WardenLogHandler.format(journalStream: "1:2", descriptor: descriptor) == .plain)
        #expect(WardenLogHandler.format(journalStream: "nonsense", descriptor: descriptor) == .plain)
    }
}
