/// The complete, validated policy the core runs under: global settings and one entry per app.
///
/// `WardenPolicy` builds it from TOML; tests and the simulator may also build it in code.
/// Every number has the default of DESIGN §1; an app's `settings` are the global settings
/// with the app's own overrides already applied.
public struct Policy: Sendable, Equatable {
    /// How many apps may be in the foreground at once (`foreground_slots`, default 1).
    public var foregroundSlots: Int
    /// The global timing settings; each app carries a resolved copy in `AppPolicy.settings`.
    public var settings: TimingSettings
    /// Memory-pressure levels and kill behaviour (`[memory]`).
    public var memory: MemorySettings
    /// Shared resources (`[resources.NAME]`), by name.
    public var resources: [String: ResourceDeclaration]
    /// The apps, in the order the policy file declares them.
    public var apps: [AppPolicy]
    /// Bounds on each app's group beyond memory (`[limits]`).
    public var limits = LimitSettings()
    /// `[cpu]`: what each CPU class gets and the background CPU budget (rule 13); each app's
    /// `AppPolicy.cpu` starts from it.
    public var cpu = CPUSettings()
    /// How much history the journal keeps (`[journal]`).
    public var journal = JournalRetention()
    /// The size cap and rotation of each app's log file (`[logs]`).
    public var logs = AppLogSettings()
    /// Operator commands run on kills and pressure changes (`[hooks]`).
    public var hooks = HookSettings()

    public init(
        foregroundSlots: Int = 1,
        settings: TimingSettings = TimingSettings(),
        memory: MemorySettings = MemorySettings(),
        resources: [String: ResourceDeclaration] = [:],
        apps: [AppPolicy] = []
    ) {
        self.foregroundSlots = foregroundSlots
        self.settings = settings
        self.memory = memory
        self.resources = resources
        self.apps = apps
    }

    /// The app named `name`, if the policy declares it.
    public func app(named name: String) -> AppPolicy? {
        apps.first { $0.name == name }
    }
}
