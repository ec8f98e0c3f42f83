/// What an app's launches took of memory: the peak footprint of each of its last
/// `keptLaunches` launches, and the peak of the launch under way. Its expected size
/// (`expected`), for the room made before its next launch (rule 9), is the median of those
/// peaks, the launch under way counted as the latest: one launch far above or below the others
/// does not move it, as a mean of the peaks would.
public struct LaunchMemoryHistory: Sendable, Equatable, Codable {
    /// The peaks of the finished launches, oldest first; at most `keptLaunches`.
    public private(set) var peaks: [Int64]
    /// The highest footprint measured in the launch under way (or the last one, until the next
    /// launch starts); 0 before any was measured.
    public private(set) var currentPeak: Int64

    /// How many launches the expected size looks back over.
    public static let keptLaunches = 5

    public init(peaks: [Int64] = [], currentPeak: Int64 = 0) {
        self.peaks = Array(peaks.suffix(Self.keptLaunches))
        self.currentPeak = max(0, currentPeak)
    }

    /// A footprint measured in the launch under way.
    public mutating func observe(_ bytes: Int64) {
        if bytes > currentPeak { currentPeak = bytes }
    }

    /// The launch under way was killed for its own growth (the culprit who took the room, an
    /// app over its fair share or over its limit): its peak measures how far it ran away, not
    /// what the app needs, and is not learned. Without it a runaway would teach room before a
    /// launch its kill point, and each of its later launches would kill for that.
    public mutating func forgetLaunchUnderWay() {
        currentPeak = 0
    }

    /// A new launch starts: the last one's peak, if one was measured, joins the peaks.
    public mutating func startLaunch() {
        guard currentPeak > 0 else { return }
        peaks.append(currentPeak)
        if peaks.count > Self.keptLaunches { peaks.removeFirst(peaks.count - Self.keptLaunches) }
        currentPeak = 0
    }

    /// The expected size of the next launch: the median of the last launches' peaks (the upper
    /// of the two middle ones for an even count); nil before any launch was measured. Found in
    /// place, without sorting a copy: the killer reads it under `kill_order = "least_missed"`.
    public var expected: Int64? {
        let total = peaks.count + (currentPeak > 0 ? 1 : 0)
        let dropped = max(0, total - Self.keptLaunches)
        return Self.median(count: total - dropped) { position in
            position + dropped < peaks.count ? peaks[position + dropped] : currentPeak
        }
    }

    /// The size the app's finished launches reached: the median of their peaks, the launch
    /// under way left out; nil before a finished launch was measured. An app that grows within
    /// it grows as its launches do, not into the room of a kill (rule 9, the culprit who takes
    /// the room).
    public var usualPeak: Int64? {
        Self.median(count: peaks.count) { peaks[$0] }
    }

    /// The median of `count` values read by `value` (the upper of the two middle ones for an even
    /// count), found in place; nil for none.
    private static func median(count: Int, _ value: (Int) -> Int64) -> Int64? {
        guard count > 0 else { return nil }
        let middle = count / 2
        for position in 0..<count {
            let candidate = value(position)
            var below = 0
            var equal = 0
            for other in 0..<count {
                let compared = value(other)
                if compared < candidate { below += 1 } else if compared == candidate { equal += 1 }
            }
            if below <= middle && middle < below + equal { return candidate }
        }
        return nil
    }
}
