/// Pressure level from memory samples with enter/exit hysteresis (rules 8, 9): warning is entered when
/// available < warningEnter and left when available >= warningExit; critical likewise with
/// criticalEnter/criticalExit. Thresholds resolve against `total`.
///
/// On a device with swap, "available" is what could still be freed without killing: the
/// available memory plus what swap can still take (`SwapFigures.headroom`), so that apps are
/// killed only when the kernel could no longer make room; and the level is critical anyway while
/// the memory available (without swap) is under `criticalEnter` and the device stalls on memory
/// at least `stallCritical` of the time, since swapping has then stopped being cheap. Where the
/// stall is measured, what could be freed under `criticalEnter` makes the level critical only
/// once the device stalls at least `stallBeforeKill`, or once it is under a quarter of
/// `criticalEnter` (`MemorySettings.makingRoomFloor`): until then the kernel still makes room
/// (from the page cache), and a kill would cost an app that waiting keeps.
///
/// Critical implies warning: when critical ends but available memory is still below the
/// warning exit threshold, the level becomes `warning`, not `normal`. A fall straight below
/// the critical enter threshold goes from `normal` to `critical` in one sample. An exit
/// threshold set below its enter threshold is treated as equal to it, so the level cannot
/// flap between two samples of the same value.
public struct MemoryLevelTracker: Sendable, Equatable {
    public var settings: MemorySettings
    public private(set) var level: PressureLevel

    public init(settings: MemorySettings) {
        self.settings = settings
        self.level = .normal
    }

    /// Takes a sample of available memory on a device with `total` bytes (and `swap`, where it
    /// has swap) and returns the new level.
    @discardableResult
    public mutating func update(available: Int64, total: Int64, swap: SwapFigures? = nil) -> PressureLevel {
        let criticalEnter = settings.criticalEnter.bytes(ofTotal: total)
        let criticalExit = max(settings.criticalExit.bytes(ofTotal: total), criticalEnter)
        let warningEnter = settings.warningEnter.bytes(ofTotal: total)
        let warningExit = max(settings.warningExit.bytes(ofTotal: total), warningEnter)
        let effective = Self.effectiveAvailable(available, swap: swap)
        let thrashing = isThrashing(available: available, swap: swap, criticalEnter: criticalEnter)
        let enter = criticalEnterBytes(total: total, swap: swap)

        let critical = thrashing || (level == .critical ? effective < criticalExit : effective < enter)
        if critical {
            level = .critical
        } else {
            let warning = level >= .warning ? effective < warningExit : effective < warningEnter
            level = warning ? .warning : .normal
        }
        return level
    }

    /// What could still be freed without killing: `available`, plus what swap can still take.
    public static func effectiveAvailable(_ available: Int64, swap: SwapFigures?) -> Int64 {
        available + (swap?.headroom ?? 0)
    }

    /// Whether the device is short of memory and stalls on it at least `stallCritical`.
    private func isThrashing(available: Int64, swap: SwapFigures?, criticalEnter: Int64) -> Bool {
        guard let limit = settings.stallCritical, let stall = swap?.stallPercent else { return false }
        return available < criticalEnter && stall >= limit
    }

    /// What could be freed under which the level turns critical: `criticalEnter`, or a quarter of
    /// it (`makingRoomFloor`) while the kernel is taken to be still making room on a device with
    /// swap (its memory stall measured and under `stallBeforeKill`).
    private func criticalEnterBytes(total: Int64, swap: SwapFigures?) -> Int64 {
        let criticalEnter = settings.criticalEnter.bytes(ofTotal: total)
        guard let limit = settings.stallBeforeKill, let swap, swap.total > 0, let stall = swap.stallPercent,
            stall < limit
        else { return criticalEnter }
        return settings.makingRoomFloor(ofTotal: total)
    }

    /// Available memory and the thresholds on a device with `total` bytes: each level's enter
    /// threshold (for critical, a quarter of it while the kernel still makes room) and its exit
    /// threshold (never below the enter one). While a level holds, the next sample is compared
    /// with its exit threshold; otherwise with its enter threshold.
    public func figures(available: Int64, total: Int64, swap: SwapFigures? = nil) -> MemoryFigures {
        let criticalEnter = criticalEnterBytes(total: total, swap: swap)
        let warningEnter = settings.warningEnter.bytes(ofTotal: total)
        return MemoryFigures(
            availableBytes: available, totalBytes: total, warningEnterBytes: warningEnter,
            warningExitBytes: max(settings.warningExit.bytes(ofTotal: total), warningEnter),
            criticalEnterBytes: criticalEnter,
            criticalExitBytes: max(settings.criticalExit.bytes(ofTotal: total), criticalEnter),
            swapHeadroomBytes: swap?.headroom, stallPercent: swap?.stallPercent)
    }

    /// The amounts of available memory at which the level can change on a device with `total`
    /// bytes: the enter and exit thresholds of warning and critical, highest first, without
    /// repeats. Kernel notifications armed at these marks see every change between samples.
    /// (They are armed on a device that is a group with a limit of its own, where swap is not
    /// counted, so `makingRoomFloor`, where `stallBeforeKill` holds a kill back, is not one.)
    public func boundaries(total: Int64) -> [Int64] {
        let criticalEnter = settings.criticalEnter.bytes(ofTotal: total)
        let warningEnter = settings.warningEnter.bytes(ofTotal: total)
        let marks = [
            warningEnter, max(settings.warningExit.bytes(ofTotal: total), warningEnter),
            criticalEnter, max(settings.criticalExit.bytes(ofTotal: total), criticalEnter),
        ]
        var unique: [Int64] = []
        for mark in marks.sorted(by: >) where mark > 0 && mark < total && unique.last != mark {
            unique.append(mark)
        }
        return unique
    }

    /// A level reported directly (PSI, kernel event, scenario step).
    public mutating func report(_ level: PressureLevel) {
        self.level = level
    }
}
