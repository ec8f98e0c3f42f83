import CoreMetrics
public import Prometheus
import Synchronization
public import WardenCore

/// The daemon's Prometheus metrics, through swift-metrics on a registry of its own (not the
/// process-wide `MetricsSystem`), so that several daemons in one process keep apart.
///
/// Counters and the kill-latency histogram move as the daemon carries out the core's actions;
/// the gauges (apps by state, each app's footprint and band, the pressure level, memory and the
/// thresholds) are set from the core's state when `exposition(of:)` is called, at scrape time.
public final class WardenMetrics: Sendable {
    /// The registry the exposition is written from.
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    /// The buckets of `appwarden_memory_kill_latency_seconds`: 1 ms to 30 s.
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
        .seconds(10), .seconds(30),
    ]
    static let latencyName = "appwarden_memory_kill_latency_seconds"

    /// When each app's memory kill was decided, until its process is seen to end.
    private let killsInFlight = Mutex<[String: Instant]>([:])
    /// The apps whose per-app gauges were set at the last scrape.
    private let appsShown = Mutex<Set<String>>([])

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [Self.latencyName: Self.latencyBuckets]
        self.factory = factory
        // Every labelled counter starts at zero, so that a rate is defined before the first event.
        for reason in TerminationReason.allCases { _ = termination(reason) }
        for outcome in Self.wakeOutcomes {
            _ = wake("fetch", outcome: outcome)
            _ = wake("push", outcome: outcome)
        }
        for outcome in Self.accessoryWakeOutcomes { _ = wake("accessory", outcome: outcome) }
        for disposition in PushDisposition.allCases { _ = pushDisposition(disposition) }
        for kind in HookInvocation.Kind.allCases {
            for outcome in ["finished", "failed", "timedOut"] { _ = hookRun(kind, outcome: outcome) }
        }
        _ = memoryKills
        _ = killLatency
    }

    /// The outcomes of a fetch or push window: the app's completion result, or `timeout`.
    static let wakeOutcomes = CompletionResult.allCases.map(\.rawValue) + ["timeout"]
    /// The outcomes of an accessory window, whose completion carries no result: `completed`, or
    /// `timeout`.
    static let accessoryWakeOutcomes = ["completed", "timeout"]

    // MARK: Counters

    func termination(_ reason: TerminationReason) -> CoreMetrics.Counter {
        CoreMetrics.Counter(
            label: "appwarden_terminations_total", dimensions: [("reason", reason.rawValue)], factory: factory)
    }

    var memoryKills: CoreMetrics.Counter {
        CoreMetrics.Counter(label: "appwarden_memory_kills_total", factory: factory)
    }

    var killLatency: CoreMetrics.Timer {
        CoreMetrics.Timer(label: Self.latencyName, factory: factory)
    }

    func wake(_ kind: String, outcome: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(
            label: "appwarden_\(kind)_wakes_total", dimensions: [("outcome", outcome)], factory: factory)
    }

    func pushDisposition(_ disposition: PushDisposition) -> CoreMetrics.Counter {
        CoreMetrics.Counter(
            label: "appwarden_push_dispositions_total", dimensions: [("disposition", disposition.rawValue)],
            factory: factory)
    }

    /// Cold launches of `app`: opens of it after the device had killed it.
    func coldLaunch(_ app: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "appwarden_cold_launches_total", dimensions: [("app", app)], factory: factory)
    }

    func hookRun(_ kind: HookInvocation.Kind, outcome: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(
            label: "appwarden_hook_runs_total", dimensions: [("hook", kind.policyKey), ("outcome", outcome)],
            factory: factory)
    }

    /// Counts one control API request: its route (`GET /v1/apps/{app}`, or `unmatched`) and status.
    public func countRequest(route: String, status: Int) {
        CoreMetrics.Counter(
            label: "appwarden_api_requests_total", dimensions: [("route", route), ("status", String(status))],
            factory: factory
        ).increment()
    }

    // MARK: What the daemon carries out

    /// Counts what a batch of the core's actions does: terminations, memory kills, push
    /// dispositions, fetch, push or accessory windows that timed out and cold launches (a `$AppStart` after
    /// a kill). A memory kill starts its latency measurement at `now`.
    func count(_ actions: [LifecycleAction], at now: Instant) {
        for action in actions {
            switch action {
            case .kill(let app, let reason) where reason == .memoryPressure:
                memoryKills.increment()
                killsInFlight.withLock { $0[app] = now }
            case .journal(let record):
                if case .analytics(.appStart(_, _, _?)) = record.kind {
                    coldLaunch(record.app).increment()
                    continue
                }
                guard case .analytics(.appTerminated(let reason)) = record.kind else { continue }
                termination(reason).increment()
                if reason == .fetchTimeout { wake("fetch", outcome: "timeout").increment() }
                if reason == .pushTimeout { wake("push", outcome: "timeout").increment() }
                if reason == .accessoryTimeout { wake("accessory", outcome: "timeout").increment() }
            case .reply(.push(let disposition)):
                pushDisposition(disposition).increment()
            default:
                continue
            }
        }
    }

    /// Counts an event the core accepted: a completed fetch or push window, by its result, and a
    /// completed accessory window.
    func count(accepted event: LifecycleEvent) {
        switch event {
        case .completeFetch(_, let result): wake("fetch", outcome: result.rawValue).increment()
        case .completePush(_, let result): wake("push", outcome: result.rawValue).increment()
        case .completeAccessory: wake("accessory", outcome: "completed").increment()
        default: break
        }
    }

    /// An app's process ended at `now`: ends its kill-latency measurement if it was killed for memory.
    func processEnded(app: String, at now: Instant) {
        guard let started = killsInFlight.withLock({ $0.removeValue(forKey: app) }) else { return }
        let latency = now - started
        killLatency.recordNanoseconds(max(0, latency.nanoseconds))
    }

    // MARK: Scrape

    /// What the gauges are set from at a scrape: the core's apps and level, and the device's memory.
    public struct Reading: Sendable {
        public var apps: [AppSnapshot]
        public var level: PressureLevel
        public var memory: MemorySettings
        /// Available and total memory, when the memory source could read them.
        public var device: (available: Int64, total: Int64)?

        public init(
            apps: [AppSnapshot], level: PressureLevel, memory: MemorySettings,
            device: (available: Int64, total: Int64)?
        ) {
            self.apps = apps
            self.level = level
            self.memory = memory
            self.device = device
        }
    }

    /// Sets the gauges from `reading` and returns the whole registry in the Prometheus text format.
    public func exposition(of reading: Reading) -> String {
        var counts: [AppState: Int] = [:]
        for app in reading.apps { counts[app.state, default: 0] += 1 }
        for state in AppState.allCases {
            gauge("appwarden_apps", [("state", state.rawValue)]).record(counts[state] ?? 0)
        }
        // Per-app series exist while the app runs: a stopped app has no footprint and no band.
        let running = reading.apps.filter { $0.state != .notRunning }
        let names = Set(running.map(\.name))
        let gone = appsShown.withLock { shown in
            defer { shown = names }
            return shown.subtracting(names)
        }
        for app in gone {
            gauge("appwarden_app_footprint_bytes", [("app", app)]).destroy()
            gauge("appwarden_app_swapped_bytes", [("app", app)]).destroy()
            gauge("appwarden_app_reclaimable_bytes", [("app", app)]).destroy()
            gauge("appwarden_app_band", [("app", app)]).destroy()
            gauge("appwarden_app_cpu_class", [("app", app)]).destroy()
            gauge("appwarden_app_activities", [("app", app)]).destroy()
            gauge("appwarden_app_background_cpu_percent", [("app", app)]).destroy()
        }
        for app in running {
            gauge("appwarden_app_footprint_bytes", [("app", app.name)]).record(app.footprint)
            gauge("appwarden_app_swapped_bytes", [("app", app.name)]).record(app.swappedBytes)
            gauge("appwarden_app_reclaimable_bytes", [("app", app.name)]).record(app.reclaimableBytes)
            if let band = app.band {
                gauge("appwarden_app_band", [("app", app.name)]).record(band.rawValue)
            }
            if let cpuClass = app.cpuClass {
                gauge("appwarden_app_cpu_class", [("app", app.name)]).record(Self.number(of: cpuClass))
            }
            gauge("appwarden_app_activities", [("app", app.name)]).record(app.activities.count)
            let percent = gauge("appwarden_app_background_cpu_percent", [("app", app.name)])
            if let measured = app.backgroundCPUPercent { percent.record(measured) } else { percent.destroy() }
        }
        gauge("appwarden_memory_pressure_level", []).record(Self.number(of: reading.level))
        if let device = reading.device {
            gauge("appwarden_memory_available_bytes", []).record(device.available)
            gauge("appwarden_memory_total_bytes", []).record(device.total)
            let thresholds: [(String, MemoryThreshold)] = [
                ("warning_enter", reading.memory.warningEnter), ("warning_exit", reading.memory.warningExit),
                ("critical_enter", reading.memory.criticalEnter), ("critical_exit", reading.memory.criticalExit),
            ]
            for (name, threshold) in thresholds {
                gauge("appwarden_memory_threshold_bytes", [("threshold", name)])
                    .record(threshold.bytes(ofTotal: device.total))
            }
        }
        return Self.withHelp(registry.emitToString())
    }

    /// The number of a CPU class in `appwarden_app_cpu_class`.
    static func number(of cpuClass: CPUClass) -> Int {
        switch cpuClass {
        case .foreground: 0
        case .background: 1
        case .activity: 2
        }
    }

    /// What each metric measures: the `# HELP` line written before its `# TYPE` line.
    static let help: [String: String] = [
        "appwarden_apps": "Apps of the policy by lifecycle state.",
        "appwarden_app_footprint_bytes":
            "The memory charged to the app: anonymous memory, shmem and swap of its group.",
        "appwarden_app_reclaimable_bytes":
            "What killing the app would give back at once: its memory in RAM and what its swapped pages take of RAM (compressed in a zram, nothing on a drive).",
        "appwarden_app_swapped_bytes":
            "How much of the app's footprint is in swap, as its compression or the last measurement of its group left it.",
        "appwarden_app_band":
            "The app's kill band: 0 over-fair-share, 1 suspended, 2 idle-background, 3 background-window, "
            + "4 background-task, 5 activity, 6 foreground.",
        "appwarden_app_cpu_class": "The app's CPU class (rule 13): 0 foreground, 1 background, 2 activity.",
        "appwarden_app_activities": "How many continuous activities the app holds (rule 14).",
        "appwarden_app_background_cpu_percent":
            "The app's CPU use over its last measured window in background, in percent of one CPU (the background CPU budget's figure).",
        "appwarden_memory_pressure_level": "The memory pressure level: 0 normal, 1 warning, 2 critical.",
        "appwarden_memory_available_bytes": "Available memory as last measured.",
        "appwarden_memory_total_bytes": "Total memory of the device, or of appwarden's group where it has a limit.",
        "appwarden_memory_threshold_bytes": "The memory thresholds of the policy, in bytes of available memory.",
        "appwarden_terminations_total": "App terminations by reason.",
        "appwarden_memory_kills_total": "Apps killed for memory pressure.",
        "appwarden_memory_kill_latency_seconds":
            "Time from the decision to kill an app for memory to the end of its process.",
        "appwarden_fetch_wakes_total": "Background fetch windows by outcome.",
        "appwarden_push_wakes_total": "Silent push windows by outcome.",
        "appwarden_accessory_wakes_total": "Accessory windows (rule 14) by outcome: completed or timeout.",
        "appwarden_push_dispositions_total": "Pushes by what became of them.",
        "appwarden_hook_runs_total": "Hook runs by hook and outcome.",
        "appwarden_cold_launches_total":
            "Cold launches by app: opens of an app after the device had killed it (a system termination), counted as each becomes active.",
        "appwarden_api_requests_total": "Control API requests by route and status.",
    ]

    /// The exposition with a `# HELP` line before each `# TYPE` line of a metric that has one.
    static func withHelp(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.split(separator: " ").dropFirst(2).first,
                let help = help[String(name)]
            {
                lines.append("# HELP \(name) \(help)")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The level as the gauge shows it: 0 normal, 1 warning, 2 critical.
    static func number(of level: PressureLevel) -> Int {
        switch level {
        case .normal: 0
        case .warning: 1
        case .critical: 2
        }
    }

    private func gauge(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: label, dimensions: dimensions, factory: factory)
    }
}
