/// The signals a policy may map an app's message kinds to (`signals`), and the kinds.
///
/// The numbers are Linux's on x86-64, ARM and RISC-V (the generic numbering); the policy
/// model keeps plain numbers so that the core needs no system headers.
enum SignalNames {
    /// The message kinds a signal can accompany, in the order the lifecycle sends them.
    static let messageKinds = [
        "expiration_warning", "fetch_start", "push_payload", "accessory_event", "memory_warning", "cpu_warning",
        "activities_ended",
        "save_state",
    ]

    /// The signals a policy may name, by name.
    static let numbers: [String: Int32] = [
        "SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGUSR1": 10, "SIGUSR2": 12, "SIGALRM": 14, "SIGTERM": 15,
        "SIGCONT": 18, "SIGWINCH": 28, "SIGIO": 29, "SIGPWR": 30,
    ]

    /// The signal names in signal-number order, for messages.
    static let names: [String] = numbers.sorted { $0.value < $1.value }.map(\.key)

    /// The number of `name`, written as `"SIGUSR1"` or `"USR1"`.
    static func number(of name: String) -> Int32? {
        numbers[name] ?? numbers["SIG" + name]
    }
}
