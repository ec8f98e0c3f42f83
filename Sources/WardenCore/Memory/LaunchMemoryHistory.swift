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
        let count = total - dropped
        guard count > 0 else { return nil }
        let middle = count / 2
        func peak(_ position: Int) -> Int64 {
            position + dropped < peaks.count ? peaks[position + dropped] : currentPeak
        }
        for position in 0..<count {
            let candidate = peak(position)
            var below = 0
            var equal = 0
            for other in 0..<count {
                let value = peak(other)
                if value < candidate { below += 1 } else if value == candidate { equal += 1 }
            }
            if below <= middle && middle < below + equal { return candidate }
        }
        return nil
    }
}
