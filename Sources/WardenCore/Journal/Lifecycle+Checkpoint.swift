/// The core's model, saved so that it survives a restart of the runtime (re-adoption).
///
/// The checkpoint is the core's own state encoded once: each app's `AppRecord` as the core
/// keeps it (but what the policy says), the foreground, the screen and memory level, the push
/// bookkeeping (tokens, delivered ids, coalesced and held pushes, the hour's wake slots) and
/// the fetch plans. The records keep their instants on the clock of the core that wrote them,
/// and `moment` says when on that clock the checkpoint was taken; a restore moves them onto its
/// own clock, so every armed timer keeps its absolute deadline and one that fell due while
/// nothing ran fires at once.
///
/// Checkpoints of format 1, which copied the records field by field with times relative to
/// the checkpoint, are still read (`LifecycleCheckpoint.Version1`); a format this version does
/// not know is refused with an error that names it.
public struct LifecycleCheckpoint: Sendable, Equatable {
    /// The format this version writes.
    public static let currentFormat = 2

    /// The format the checkpoint was read in (1 for one converted from format 1).
    public var format: Int
    /// When the checkpoint was taken, on the clock of the core that took it.
    public var moment: Instant
    /// The records of the apps the policy declared, as the core kept them.
    var apps: [AppRecord]
    /// Apps in the foreground, least recently used first.
    public var foreground: [String]
    public var isLocked: Bool
    public var isOverlaid: Bool
    /// The memory level at the checkpoint.
    public var pressure: PressureLevel
    /// The push bookkeeping, times relative to `moment`; nil only in format-1 checkpoints that
    /// predate it (their pushes start afresh).
    public var pushes: PushRouter.State?
    /// The fetch plans, times relative to `moment`; nil only in format-1 checkpoints that
    /// predate them (their fetch wakes are planned afresh from the restore).
    public var fetches: FetchScheduler.State?
    /// The apps of a format-1 checkpoint, converted by the restore, which knows the policy.
    var version1Apps: [Version1.App]? = nil

    /// The names of the apps whose records the checkpoint holds.
    public var appNames: [String] { apps.map(\.name) + (version1Apps ?? []).map(\.name) }
}

extension LifecycleCheckpoint: Codable {
    enum CodingKeys: String, CodingKey {
        case format, moment, apps, foreground, isLocked, isOverlaid, pressure, pushes, fetches
    }

    /// Reads a checkpoint of the current format, or of format 1 (which carries no `format`).
    ///
    /// - Throws: `DecodingError` when the data is not a checkpoint, or names a format this
    ///   version does not know (written by a newer appwarden).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decodeIfPresent(Int.self, forKey: .format) ?? 1
        switch format {
        case 1:
            self.init(version1: try Version1(from: decoder))
        case Self.currentFormat:
            self.init(
                format: format,
                moment: try container.decode(Instant.self, forKey: .moment),
                apps: try container.decode([AppRecord].self, forKey: .apps),
                foreground: try container.decode([String].self, forKey: .foreground),
                isLocked: try container.decode(Bool.self, forKey: .isLocked),
                isOverlaid: try container.decode(Bool.self, forKey: .isOverlaid),
                pressure: try container.decode(PressureLevel.self, forKey: .pressure),
                pushes: try container.decodeIfPresent(PushRouter.State.self, forKey: .pushes),
                fetches: try container.decodeIfPresent(FetchScheduler.State.self, forKey: .fetches))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container,
                debugDescription: "The checkpoint has format \(format), which this appwarden does not read "
                    + "(it reads formats 1 to \(Self.currentFormat)); it was written by a newer appwarden.")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, apps: apps)
    }

    /// Encodes the checkpoint with `apps` written in place of its records: a writer that keeps
    /// each of `appRecords` encoded passes those encodings, in the same order.
    public func encode(to encoder: any Encoder, apps: some Encodable) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.currentFormat, forKey: .format)
        try container.encode(moment, forKey: .moment)
        try container.encode(apps, forKey: .apps)
        try container.encode(foreground, forKey: .foreground)
        try container.encode(isLocked, forKey: .isLocked)
        try container.encode(isOverlaid, forKey: .isOverlaid)
        try container.encode(pressure, forKey: .pressure)
        try container.encodeIfPresent(pushes, forKey: .pushes)
        try container.encodeIfPresent(fetches, forKey: .fetches)
    }
}

extension LifecycleCheckpoint {
    /// The apps' records, in the order the checkpoint writes them: a writer that keeps the
    /// encoding of each encodes again only the records that changed since its last save.
    public var appRecords: [AppRecord] { apps }
}

extension Lifecycle {
    /// The model at `now`, for a later `init(policy:checkpoint:at:)`.
    public func checkpoint(at now: Instant) -> LifecycleCheckpoint {
        LifecycleCheckpoint(
            format: LifecycleCheckpoint.currentFormat, moment: now,
            // No copy while every record is the policy's (a reload that removes an app keeps its record).
            apps: records.allSatisfy(\.inPolicy) ? records : records.filter(\.inPolicy),
            foreground: foreground.map { records[$0].name }, isLocked: isLocked, isOverlaid: isOverlaid,
            pressure: memoryTracker.level, pushes: pushRouter.state(relativeTo: now),
            fetches: fetchScheduler.state(relativeTo: now))
    }

    /// A core for `policy` that continues from `checkpoint`, whose moment is `then` on the new clock.
    ///
    /// Each saved record takes its settings from `policy` (as a reload does) and its instants
    /// move onto the new clock; apps the policy no longer declares are left out. Every armed
    /// timer, fetch wakes included, is kept at its deadline and listed by `armedTimers()` so the
    /// runtime re-arms it; apps without a planned wake (new in the policy) are planned at the
    /// first event (or `start(at:)`).
    ///
    /// Device tokens (current and stale) come back from the checkpoint; new ones come from
    /// `tokenSource`.
    public init(
        policy: Policy, checkpoint: LifecycleCheckpoint, at then: Instant,
        tokenSource: DeviceTokenSource = .deterministic
    ) {
        self.init(policy: policy, tokenSource: tokenSource)
        let offset = then - checkpoint.moment
        for var record in checkpoint.apps {
            guard let index = indexByName[record.name] else { continue }
            record.apply(appPolicies[index])
            record.shift(by: offset)
            records[index] = record
            resolveMemoryBounds(index)
        }
        if let apps = checkpoint.version1Apps {
            restore(version1: apps, of: checkpoint, at: then)
        }
        foreground = checkpoint.foreground.compactMap { indexByName[$0] }.filter { records[$0].isInForeground }
        if let pushes = checkpoint.pushes {
            pushRouter = PushRouter(state: pushes, relativeTo: then, tokenSource: tokenSource)
        }
        if let fetches = checkpoint.fetches {
            fetchScheduler = FetchScheduler(state: fetches, relativeTo: then)
        }
        isLocked = checkpoint.isLocked
        isOverlaid = checkpoint.isOverlaid
        memoryTracker.report(checkpoint.pressure)
    }

    /// Hands out the device tokens a previous core had handed out, for checkpoints that did not
    /// carry the push bookkeeping: `tokens` maps each app to its current token, which stays
    /// current; the app's earlier tokens are stale. Tokens the core knows already, and those of
    /// unknown apps, are left alone.
    public mutating func restoreDeviceTokens(_ tokens: [String: String]) {
        for (app, token) in tokens.sorted(by: { $0.key < $1.key }) where indexByName[app] != nil {
            pushRouter.adoptToken(token, for: app)
        }
    }

    /// Every armed timer and its deadline, in app order.
    public func armedTimers() -> [(timer: TimerID, deadline: Instant)] {
        var result: [(timer: TimerID, deadline: Instant)] = []
        for record in records {
            for kind in TimerID.Kind.allCases {
                if let deadline = record.timers[kind] {
                    result.append((TimerID(app: record.name, kind: kind), deadline))
                }
            }
        }
        return result
    }

    /// The launch number of every running app.
    public func runningLaunches() -> [(app: String, launch: Int, state: AppState)] {
        records.filter { $0.inPolicy && $0.isRunning }.map { ($0.name, $0.launch, $0.state) }
    }

}
