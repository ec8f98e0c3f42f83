/// `[logs]`: how each app's standard output and error are kept in `<state>/logs/APP.log`.
public struct AppLogSettings: Sendable, Equatable {
    /// The size past which `APP.log` is rotated to `APP.log.1` (`max_size`, 1 MiB).
    public var maxSize: Int64
    /// How many rotated files stay (`keep`, 3): `APP.log.1` (newest) to `APP.log.N`.
    public var keep: Int

    public init(maxSize: Int64 = 1 << 20, keep: Int = 3) {
        self.maxSize = maxSize
        self.keep = keep
    }
}
