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

    /// A new launch starts: the last one's peak, if one was measured, joins the peaks.
    public mutating func startLaunch() {
        guard currentPeak > 0 else { return }
        peaks.append(currentPeak)
        if peaks.count > Self.keptLaunches { peaks.removeFirst(peaks.count - Self.keptLaunches) }
        currentPeak = 0
    }

    /// The expected size of the next launch: the median of the last launches' peaks (the upper
    /// of the two middle ones for an even count); nil before any launch was measured.
    public var expected: Int64? {
        var all = peaks
        if currentPeak > 0 { all.append(currentPeak) }
        if all.count > Self.keptLaunches { all.removeFirst(all.count - Self.keptLaunches) }
        guard !all.isEmpty else { return nil }
        return all.sorted()[all.count / 2]
    }
}
