/// What the journal keeps of the core's inputs, so that `appwarden export` can write a day as a
/// scenario: every user verb, app call, push and process end as a scenario step; the device's
/// memory and the apps' footprints only at the moments they decided something (a level change,
/// a kill, a warning); the policy whenever one comes into force; and, in words, what a replay
/// cannot reproduce.
public enum JournalInput: Sendable, Equatable {
    /// A scenario step without its time: `open mail`, `mail complete-fetch newData`,
    /// `memory 28MiB of 600MiB`.
    case step(String)
    /// The policy that came into force (at the daemon's start or a reload): its file and text.
    case policy(path: String, text: String)
    /// Something the daemon observed that a scenario cannot replay, in words.
    case unreplayable(String)

    /// The entry's name: `step`, `policy` or `unreplayable`.
    public var name: String {
        switch self {
        case .step: "step"
        case .policy: "policy"
        case .unreplayable: "unreplayable"
        }
    }

    /// The entry's properties.
    public var properties: [String: String] {
        switch self {
        case .step(let text): ["step": text]
        case .policy(let path, let text): ["path": path, "text": text]
        case .unreplayable(let text): ["text": text]
        }
    }

    /// Reads an input back from its journal fields; nil when they are not understood.
    public init?(name: String, properties: [String: String]) {
        switch name {
        case "step":
            guard let text = properties["step"] else { return nil }
            self = .step(text)
        case "policy":
            guard let text = properties["text"] else { return nil }
            self = .policy(path: properties["path"] ?? "", text: text)
        case "unreplayable":
            guard let text = properties["text"] else { return nil }
            self = .unreplayable(text)
        default:
            return nil
        }
    }
}
