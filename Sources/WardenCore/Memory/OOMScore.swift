/// Rule 10: oom_score_adj by band (foreground lowest, suspended highest; inside the suspended band an
/// app whose kill gives back more scores higher). Values in -1000...1000; protected apps get the lowest score.
///
/// The mapping, so that the kernel's OOM killer, if it acts first, follows rule 9's order:
///
/// | app | `oom_score_adj` |
/// | --- | --- |
/// | protected (any band) | -900 |
/// | over its fair share (any state) | 1000 |
/// | foreground | 0 |
/// | background holding an activity | 50 |
/// | background running tasks | 100 |
/// | background in a fetch or push window | 200 |
/// | background with nothing keeping it awake | 300 |
/// | suspended | 500 + 500 × log₂(1 + footprint in MiB) / 16, at most 1000 |
///
/// The footprint scored is what a kill gives back (`AppRecord.reclaimable`), the figure rule 9
/// ranks by. Inside the suspended band the score grows with its logarithm: 0 MiB
/// scores 500, 1 MiB 531, 16 MiB about 628, 1 GiB about 812, and 64 GiB or more 1000. The
/// logarithm is interpolated linearly between powers of two, so the score never decreases
/// as the footprint grows. -900 rather than -1000 keeps a protected app killable by the
/// kernel as the very last resort.
public enum OOMScore {
    /// The score of protected apps.
    public static let protectedScore = -900
    /// The lowest score of the suspended band (an empty footprint).
    public static let suspendedBase = 500
    /// The highest score (a suspended app of 64 GiB or more).
    public static let maximum = 1000

    public static func score(band: KillBand, footprint: Int64, isProtected: Bool) -> Int {
        if isProtected { return protectedScore }
        switch band {
        case .overFairShare: return maximum
        case .foreground: return 0
        case .activity: return 50
        case .backgroundTask: return 100
        case .backgroundWindow: return 200
        case .idleBackground: return 300
        case .suspended:
            // log₂(1 + MiB) in 1/1024ths, scaled so that 16 doublings span 500 points.
            let mebibytes = max(footprint, 0) >> 20
            let log = log2Fixed(UInt64(mebibytes) + 1)
            let scaled = log * Int64(maximum - suspendedBase) / (16 * 1024)
            return min(maximum, suspendedBase + Int(scaled))
        }
    }

    /// log₂(value) in fixed point with 10 fractional bits, linear between powers of two.
    /// `value` must be at least 1.
    static func log2Fixed(_ value: UInt64) -> Int64 {
        let exponent = UInt64.bitWidth - 1 - value.leadingZeroBitCount
        let power = UInt64(1) << exponent
        // (value - power) / power is the fraction in [0, 1); in 1/1024ths.
        let remainder = value - power
        let fraction: UInt64
        if exponent >= 10 {
            fraction = remainder >> (exponent - 10)
        } else {
            fraction = remainder << (10 - exponent)
        }
        return Int64(exponent) * 1024 + Int64(fraction)
    }
}
