/// `[memory]`: rules 8 and 9.
public struct MemorySettings: Sendable, Equatable {
    /// Available memory below which the level becomes `warning` (`warning_enter`, 15%).
    public var warningEnter: MemoryThreshold
    /// Available memory at or above which `warning` ends (`warning_exit`, 20%).
    public var warningExit: MemoryThreshold
    /// Available memory below which the level becomes `critical` (`critical_enter`, 5%).
    public var criticalEnter: MemoryThreshold
    /// Available memory at or above which `critical` ends (`critical_exit`, 10%).
    public var criticalExit: MemoryThreshold
    /// Whether foreground apps may be killed by the memory killer (`kill_foreground`, true):
    /// as a last resort, or first when one has taken more than its fair share.
    public var killForeground: Bool
    /// The most an app in the foreground may hold (`foreground_limit`, none): jetsam's active
    /// per-process limit. Past it the app is terminated (`memoryLimit`); its group's
    /// `memory.max` is set to it, so the kernel stops a runaway app at it too.
    public var foregroundLimit: MemoryThreshold?
    /// The most an app in background or suspended may hold (`background_limit`, none): jetsam's
    /// inactive limit. It applies when the app leaves the foreground (an app already above it
    /// is terminated, `memoryLimit`) and is lifted when the app returns.
    public var backgroundLimit: MemoryThreshold?
    /// An app's fair share of the device's memory (`fair_share`, 40%): under critical pressure
    /// an app whose footprint is above it is killed before every other app, suspended ones
    /// included (rule 9, "the culprit first"); an app within it keeps the band order.
    public var fairShare: MemoryThreshold?
    /// On a device with swap, the memory stall (PSI `full avg10` of the whole device, in
    /// percent) from which the level is critical while the memory available without swap is
    /// under `critical_enter`, however much swap is left (`stall_critical`, 40%): swapping has
    /// then stopped being cheap. Nil: swap alone decides.
    public var stallCritical: Double?
    /// On a device with swap whose memory stall is measured, the stall (PSI `full avg10`, in
    /// percent) below which the kernel is taken to be still making room (`stall_before_kill`,
    /// 20%): what could be freed under `critical_enter` makes the level critical only once the
    /// device stalls this much, or once it is under `makingRoomFloor` (a quarter of
    /// `critical_enter`). Nil: the threshold alone decides.
    public var stallBeforeKill: Double?
    /// Where the device has swap, push a suspended app's memory out to swap right after it is
    /// frozen (`compress_suspended`, true), so that more apps stay alive; per app too.
    public var compressSuspended: Bool
    /// How long after a kill for memory the killer counts the victim's footprint as on its way
    /// back while its end is not reported (`victim_exit_wait`, 1s): another app is killed
    /// meanwhile only if the device would stay critical with it back. Zero: no wait.
    public var victimExitWait: Duration
    /// Before an app is launched, make room for the size its last launches lead to expect, in
    /// the killer's order, when what memory gives would not hold it: by compressing suspended
    /// apps as far as swap can take it, then by kills for what swap cannot (`make_room`,
    /// true). False: the app is launched, and the killer acts once the level says so.
    public var makeRoom: Bool
    /// The order inside the suspended band (`kill_order`, `largest`): rule 9's largest first, or
    /// `least_missed`, which weighs the person's recent opens and the relaunch's size against
    /// what a kill gives back (`KillOrder`).
    public var killOrder: KillOrder

    public init(
        warningEnter: MemoryThreshold = .percent(15),
        warningExit: MemoryThreshold = .percent(20),
        criticalEnter: MemoryThreshold = .percent(5),
        criticalExit: MemoryThreshold = .percent(10),
        killForeground: Bool = true,
        foregroundLimit: MemoryThreshold? = nil,
        backgroundLimit: MemoryThreshold? = nil,
        fairShare: MemoryThreshold? = MemorySettings.defaultFairShare,
        stallCritical: Double? = MemorySettings.defaultStallCritical,
        stallBeforeKill: Double? = MemorySettings.defaultStallBeforeKill,
        compressSuspended: Bool = true,
        victimExitWait: Duration = MemorySettings.defaultVictimExitWait,
        makeRoom: Bool = true,
        killOrder: KillOrder = .largest
    ) {
        self.warningEnter = warningEnter
        self.warningExit = warningExit
        self.criticalEnter = criticalEnter
        self.criticalExit = criticalExit
        self.killForeground = killForeground
        self.foregroundLimit = foregroundLimit
        self.backgroundLimit = backgroundLimit
        self.fairShare = fairShare
        self.stallCritical = stallCritical
        self.stallBeforeKill = stallBeforeKill
        self.compressSuspended = compressSuspended
        self.victimExitWait = victimExitWait
        self.makeRoom = makeRoom
        self.killOrder = killOrder
    }

    /// The built-in wait for a dying victim: lmkd waits for its victim's death the same way.
    public static let defaultVictimExitWait: Duration = .seconds(1)

    /// The longest `victim_exit_wait` a policy may set: the killer must not stand still for long
    /// behind a victim that cannot die.
    public static let maximumVictimExitWait: Duration = .seconds(10)

    /// The built-in stall at which a short device with swap is critical: 40% of the time stalled
    /// is thrashing by any measure (systemd-oomd's default limit for a unit is 60% for 30 s).
    public static let defaultStallCritical = 40.0

    /// The built-in stall below which a device with swap under `critical_enter` is still making
    /// room: a fifth of the time stalled, half of `stall_critical`. PSI's `avg10` still carries
    /// the stall of the seconds before a kill for a while after it, so a lower mark turns the
    /// cold launch that follows a kill into a second kill; `makingRoomFloor` bounds the wait
    /// however the stall reads.
    public static let defaultStallBeforeKill = 20.0

    /// What could be freed under which a device with swap is critical even while its kernel is
    /// taken to be still making room (`stall_before_kill`): a quarter of `critical_enter`, on a
    /// device with `total` bytes. On a 1 GiB device with zram (12 MiB) that is about where
    /// earlyoom and nohang kill, and twice what the kernel left when its own OOM killer acted;
    /// the kernel alone went down to 15 MiB and made room without a kill.
    public func makingRoomFloor(ofTotal total: Int64) -> Int64 {
        criticalEnter.bytes(ofTotal: total) / 4
    }

    /// The built-in fair share: 40% of the device's memory, above the third of the device that a
    /// legitimate foreground app (a map loading tiles, a game loading a level) may take, and
    /// reached by an app that grows without end before the device runs out.
    public static let defaultFairShare = MemoryThreshold.percent(40)
}

/// An amount of available memory: absolute, or a share of the device's memory.
public enum MemoryThreshold: Sendable, Equatable, CustomStringConvertible {
    case bytes(Int64)
    case percent(Double)

    /// The threshold in bytes on a device with `total` bytes of memory.
    public func bytes(ofTotal total: Int64) -> Int64 {
        switch self {
        case .bytes(let bytes): bytes
        case .percent(let percent): Int64((Double(total) * percent / 100).rounded())
        }
    }

    public var description: String {
        switch self {
        case .bytes(let bytes): DurationFormat.sizeString(bytes)
        case .percent(let percent):
            percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
        }
    }
}
