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
}
