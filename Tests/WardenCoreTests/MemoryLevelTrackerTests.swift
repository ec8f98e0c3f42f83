import Testing
import WardenCore

@Suite struct MemoryLevelTrackerTests {
    /// Thresholds of 150/200 (warning) and 50/100 (critical) bytes on a 1000-byte device.
    private func tracker() -> MemoryLevelTracker {
        MemoryLevelTracker(
            settings: MemorySettings(
                warningEnter: .bytes(150), warningExit: .bytes(200), criticalEnter: .bytes(50),
                criticalExit: .bytes(100)))
    }

    private func levels(_ samples: [Int64], tracker initial: MemoryLevelTracker) -> [PressureLevel] {
        var tracker = initial
        return samples.map { tracker.update(available: $0, total: 1000) }
    }

    /// Warning starts below its enter threshold and lasts until available reaches its exit threshold.
    @Test func warningHasEnterAndExitHysteresis() {
        #expect(tracker().level == .normal)
        #expect(
            levels([160, 150, 149, 180, 199, 200, 160], tracker: tracker()) == [
                .normal, .normal, .warning, .warning, .warning, .normal, .normal,
            ])
    }

    /// Critical starts below its enter threshold, straight from normal, and lasts until its exit threshold.
    @Test func criticalHasEnterAndExitHysteresis() {
        #expect(
            levels([300, 49, 60, 99, 100], tracker: tracker()) == [.normal, .critical, .critical, .critical, .warning])
    }

    /// When critical ends while available is still below the warning exit, the level is warning;
    /// at or above it, normal.
    @Test func endingCriticalFallsBackToWarningOrNormal() {
        #expect(levels([40, 120, 190, 200], tracker: tracker()) == [.critical, .warning, .warning, .normal])
        #expect(levels([40, 250], tracker: tracker()) == [.critical, .normal])
        // Between the warning thresholds after critical: still warning (critical implies warning).
        #expect(levels([40, 170], tracker: tracker()) == [.critical, .warning])
    }

    /// Percent thresholds resolve against the device's total memory (defaults 15/20/5/10 %).
    @Test func percentThresholdsResolveAgainstTotal() {
        var tracker = MemoryLevelTracker(settings: MemorySettings())
        let total: Int64 = 10_000
        #expect(tracker.update(available: 1_500, total: total) == .normal)
        #expect(tracker.update(available: 1_499, total: total) == .warning)
        #expect(tracker.update(available: 499, total: total) == .critical)
        #expect(tracker.update(available: 999, total: total) == .critical)
        #expect(tracker.update(available: 1_000, total: total) == .warning)
        #expect(tracker.update(available: 2_000, total: total) == .normal)
        #expect(tracker.update(available: 1_499, total: 100_000) == .critical)
    }

    /// A reported level replaces the current one; the next sample is judged with that level's exit.
    @Test func reportedLevelIsKeptUntilTheNextSample() {
        var tracker = tracker()
        tracker.report(.critical)
        #expect(tracker.level == .critical)
        #expect(tracker.update(available: 80, total: 1000) == .critical)
        tracker.report(.warning)
        #expect(tracker.update(available: 160, total: 1000) == .warning)
        #expect(tracker.update(available: 500, total: 1000) == .normal)
    }

    /// An exit threshold below its enter threshold acts as equal to it, so a steady sample never flaps.
    @Test func invertedThresholdsDoNotFlap() {
        var tracker = MemoryLevelTracker(
            settings: MemorySettings(
                warningEnter: .bytes(200), warningExit: .bytes(150), criticalEnter: .bytes(50),
                criticalExit: .bytes(10)))
        #expect(tracker.update(available: 180, total: 1000) == .warning)
        #expect(tracker.update(available: 180, total: 1000) == .warning)
        #expect(tracker.update(available: 200, total: 1000) == .normal)
        #expect(tracker.update(available: 30, total: 1000) == .critical)
        #expect(tracker.update(available: 30, total: 1000) == .critical)
    }

    /// The boundaries are the four thresholds in bytes, highest first; an exit below its enter
    /// threshold counts as the enter threshold and is listed once.
    @Test func boundariesListEveryThresholdOnce() {
        let mib: Int64 = 1 << 20
        let tracker = MemoryLevelTracker(
            settings: MemorySettings(
                warningEnter: .bytes(128 * mib), warningExit: .bytes(160 * mib), criticalEnter: .bytes(64 * mib),
                criticalExit: .percent(10)))
        #expect(tracker.boundaries(total: 1000 * mib) == [160 * mib, 128 * mib, 100 * mib, 64 * mib])
        let collapsed = MemoryLevelTracker(
            settings: MemorySettings(
                warningEnter: .bytes(128 * mib), warningExit: .bytes(100 * mib), criticalEnter: .bytes(64 * mib),
                criticalExit: .bytes(64 * mib)))
        #expect(collapsed.boundaries(total: 1000 * mib) == [128 * mib, 64 * mib])
    }
}

/// The level on a device with swap: memory and swap together, and the stall.
@Suite struct MemoryLevelWithSwapTests {
    static let mib: Int64 = 1 << 20
    static let gib: Int64 = 1 << 30

    /// What swap could free counts with the available memory; a zram copy still takes RAM.
    @Test func swapHeadroomCountsWhatMovingReallyFrees() {
        let zram = SwapFigures(
            free: 512 * Self.mib, total: 512 * Self.mib, swappable: 300 * Self.mib, compressionRatio: 2)
        #expect(zram.headroom == 150 * Self.mib)
        let disk = SwapFigures(free: 100 * Self.mib, total: 1 * Self.gib, swappable: 300 * Self.mib)
        #expect(disk.headroom == 100 * Self.mib)
        let full = SwapFigures(free: 0, total: 512 * Self.mib, swappable: 300 * Self.mib, compressionRatio: 3)
        #expect(full.headroom == 0)
    }

    /// Memory short but swap left: normal; swap gone too: critical.
    @Test func theLevelFollowsMemoryAndSwapTogether() {
        var tracker = MemoryLevelTracker(settings: MemorySettings())
        let short: Int64 = 20 * Self.mib  // under 5% of 1GiB
        let roomy = SwapFigures(
            free: 400 * Self.mib, total: 512 * Self.mib, swappable: 600 * Self.mib, compressionRatio: 2)
        #expect(tracker.update(available: short, total: Self.gib, swap: roomy) == .normal)
        let spent = SwapFigures(
            free: 10 * Self.mib, total: 512 * Self.mib, swappable: 600 * Self.mib, compressionRatio: 2)
        #expect(tracker.update(available: short, total: Self.gib, swap: spent) == .critical)
        #expect(tracker.update(available: short, total: Self.gib) == .critical)
    }

    /// A device short of memory that stalls at least stall_critical is critical with swap left;
    /// the stall alone, with memory to spare, is not.
    @Test func aShortDeviceThatStallsIsCritical() {
        var tracker = MemoryLevelTracker(settings: MemorySettings())
        var swap = SwapFigures(
            free: 400 * Self.mib, total: 512 * Self.mib, swappable: 600 * Self.mib, compressionRatio: 2,
            stallPercent: 39)
        #expect(tracker.update(available: 20 * Self.mib, total: Self.gib, swap: swap) == .normal)
        swap.stallPercent = 45
        #expect(tracker.update(available: 20 * Self.mib, total: Self.gib, swap: swap) == .critical)
        var calm = MemoryLevelTracker(settings: MemorySettings())
        #expect(calm.update(available: 500 * Self.mib, total: Self.gib, swap: swap) == .normal)
        var unbounded = MemoryLevelTracker(settings: MemorySettings(stallCritical: nil))
        #expect(unbounded.update(available: 20 * Self.mib, total: Self.gib, swap: swap) == .normal)
    }

    /// With swap spent and what could be freed under critical_enter (51 MiB of 1 GiB), a device
    /// whose memory stall is under stall_before_kill (20%) is still making room: warning, down to
    /// a quarter of critical_enter (12.8 MiB); a stall of 20% or more, or less than a quarter
    /// left, is critical. Where the stall is not measured, or stall_before_kill is "none",
    /// critical_enter alone decides.
    @Test func aDeviceWithSwapThatDoesNotStallIsKilledOnlyAtAQuarterOfCriticalEnter() {
        var spent = SwapFigures(free: 0, total: 512 * Self.mib, swappable: 600 * Self.mib, compressionRatio: 2)
        spent.stallPercent = 19
        var tracker = MemoryLevelTracker(settings: MemorySettings())
        #expect(tracker.update(available: 40 * Self.mib, total: Self.gib, swap: spent) == .warning)
        #expect(
            tracker.figures(available: 40 * Self.mib, total: Self.gib, swap: spent).criticalEnterBytes == Self.gib / 80)
        #expect(tracker.update(available: 25 * Self.mib, total: Self.gib, swap: spent) == .warning)
        #expect(tracker.update(available: 13 * Self.mib, total: Self.gib, swap: spent) == .warning)
        #expect(tracker.update(available: 12 * Self.mib, total: Self.gib, swap: spent) == .critical)

        var stalling = MemoryLevelTracker(settings: MemorySettings())
        spent.stallPercent = 20
        #expect(stalling.update(available: 40 * Self.mib, total: Self.gib, swap: spent) == .critical)

        var unmeasured = MemoryLevelTracker(settings: MemorySettings())
        spent.stallPercent = nil
        #expect(unmeasured.update(available: 40 * Self.mib, total: Self.gib, swap: spent) == .critical)

        var off = MemoryLevelTracker(settings: MemorySettings(stallBeforeKill: nil))
        spent.stallPercent = 4
        #expect(off.update(available: 40 * Self.mib, total: Self.gib, swap: spent) == .critical)
        var noSwap = MemoryLevelTracker(settings: MemorySettings())
        #expect(noSwap.update(available: 40 * Self.mib, total: Self.gib) == .critical)
    }
}
