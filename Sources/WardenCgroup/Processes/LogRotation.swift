/// How an app's log file is bounded: rotated past a size, with a number of old files kept.
///
/// The relay (`warden_log_relay.c`) prefixes each line with an RFC 3339 UTC time with
/// milliseconds and, before a line would take `APP.log` past `maxSize`, renames `APP.log` to
/// `APP.log.1`, `APP.log.1` to `APP.log.2` … up to `APP.log.KEEP`.
public struct LogRotation: Sendable, Hashable {
    /// The size in bytes past which the file is rotated.
    public var maxSize: Int64
    /// How many rotated files stay.
    public var keep: Int

    /// Makes a rotation rule.
    public init(maxSize: Int64, keep: Int) {
        self.maxSize = maxSize
        self.keep = keep
    }
}
