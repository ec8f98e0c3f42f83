#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The kernel's boot clock, which counts time asleep too.
public enum BootClock {
    /// Milliseconds since boot (`clock_gettime(CLOCK_BOOTTIME)`); nil when the call fails.
    public static func millis() -> Int64? {
        var time = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else { return nil }
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
