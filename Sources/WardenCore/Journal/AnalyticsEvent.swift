/// The analytics events of §1.6.
public enum AnalyticsEvent: Sendable, Equatable, Codable {
    /// The app became active. `cold`: this open launched the process; `afterPassive`: it
    /// had been launched passively; `afterKill`: a cold launch of an app the device had killed,
    /// with the reason it did (a system termination, such as `memoryPressure`); nil otherwise.
    case appStart(cold: Bool, afterPassive: Bool, afterKill: TerminationReason? = nil)
    /// The app entered background after `foregroundDuration` in the foreground.
    case appEnd(foregroundDuration: Duration)
    /// The app was launched straight into background.
    case appStartPassively(reason: LaunchReason)
    /// The app stopped running.
    case appTerminated(reason: TerminationReason)

    /// The event's name as it appears in the journal and in scenarios.
    public var name: String {
        switch self {
        case .appStart: "$AppStart"
        case .appEnd: "$AppEnd"
        case .appStartPassively: "$AppStartPassively"
        case .appTerminated: "$AppTerminated"
        }
    }
}
