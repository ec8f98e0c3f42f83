/// The memory watch's measurements as the core decides them: which apps a sample measures,
/// which of their measurements are worth telling, and the events in the order the core takes
/// them.
///
/// The runtime measures when `MemoryWatchPlan` says so and makes one call per measurement; it
/// hands the events back one by one (`take(_:at:)`), carrying out each one's actions before the
/// next, so that a footprint's kill and what it leads to come before the sample, as for any
/// event.
extension Lifecycle {
    /// How far an app's part in swap, or the RAM that part takes, moves before the core is told
    /// of it: a MiB.
    public static let swappedChange: Int64 = 1 << 20

    /// The events of one memory sample of the device (`available` of `total` bytes, and `swap`
    /// where it has swap): the changed footprints of the running apps, by name, when the sample
    /// makes or keeps the level critical, so that the killer ranks them on fresh figures
    /// (`measure` measures them; nothing is measured otherwise), then the sample itself.
    public func sampleEvents(
        available: Int64, total: Int64, swap: SwapFigures?,
        measuring measure: (_ apps: [String]) -> [String: AppMemoryMeasurement]
    ) -> [LifecycleEvent] {
        footprintEvents(of: appsToMeasure(beforeSampleOf: available, total: total, swap: swap), measuring: measure)
            + [.memorySample(available: available, total: total, swap: swap)]
    }

    /// The events of the measurement again after a kill for memory
    /// (`MemoryWatchPlan.measuresAgain(after:)`), once the victim's group is empty: the changed
    /// footprints of the running apps, by name, then a sample of the device measured after them
    /// (`device`; no sample when it cannot be measured). A sample still critical kills the next
    /// victim.
    public func eventsMeasuredAgain(
        measuring measure: (_ apps: [String]) -> [String: AppMemoryMeasurement],
        device: () -> (available: Int64, total: Int64, swap: SwapFigures?)?
    ) -> [LifecycleEvent] {
        var events = footprintEvents(of: runningApps(includingSuspended: false), measuring: measure)
        if let device = device() {
            events.append(.memorySample(available: device.available, total: device.total, swap: device.swap))
        }
        return events
    }

    /// The events of a sweep: the changed footprints of the running apps (not the suspended
    /// ones), by name.
    public func sweepEvents(
        measuring measure: (_ apps: [String]) -> [String: AppMemoryMeasurement]
    ) -> [LifecycleEvent] {
        footprintEvents(of: runningApps(includingSuspended: false), measuring: measure)
    }

    /// The changed footprints of `apps`, by name, as `measure` measures them (an app it does
    /// not measure is passed over; nothing is measured for no apps).
    public func footprintEvents(
        of apps: [String], measuring measure: (_ apps: [String]) -> [String: AppMemoryMeasurement]
    ) -> [LifecycleEvent] {
        guard !apps.isEmpty else { return [] }
        return measure(apps).sorted { $0.key < $1.key }.compactMap { app, measurement in
            footprintEvent(of: app, measured: measurement)
        }
    }

    /// The event that tells the core of `measurement` of `app`: when the footprint changed, or
    /// when the part in swap moved by `swappedChange` or more (the kernel swapping a frozen app
    /// out, a thawed app bringing its pages back), which a wake's cost and `status` read; nil
    /// otherwise. An app the policy does not declare is always told (and refused).
    func footprintEvent(of app: String, measured measurement: AppMemoryMeasurement) -> LifecycleEvent? {
        let known = footprint(of: app)
        let swappedMoved = known.map { abs($0.swapped - measurement.swapped) >= Self.swappedChange } ?? true
        // What the swapped part takes of RAM follows the zram's compression, which drifts.
        let inRAMMoved =
            known.map { known in
                measurement.swappedInRAM.map { abs(known.swappedInRAM - $0) >= Self.swappedChange } ?? false
            } ?? true
        guard known?.bytes != measurement.footprint || swappedMoved || inRAMMoved else { return nil }
        return .footprint(
            app: app, bytes: measurement.footprint, swapped: measurement.swapped,
            swappedInRAM: measurement.swappedInRAM)
    }
}
