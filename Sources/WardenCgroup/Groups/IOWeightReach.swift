/// Where the I/O weights of the app groups (rule 13) take effect: a drive whose scheduler is BFQ
/// honours `io.bfq.weight`, one with `io.cost` on honours `io.weight`, and any other (mq-deadline,
/// kyber, none) ignores both. appwarden writes the weights either way and changes no drive's
/// scheduler; the start-up log says which drives honour them.
public struct IOWeightReach: Sendable, Equatable {
    /// A drive and what makes it honour the weights (`bfq` or `io.cost`).
    public struct Drive: Sendable, Equatable {
        public var name: String
        public var means: String

        public init(name: String, means: String) {
            self.name = name
            self.means = means
        }
    }

    /// The drives that honour the weights.
    public var honouring: [Drive]
    /// The drives that ignore them, each with its scheduler (`vda uses mq-deadline`).
    public var ignoring: [Drive]

    public init(honouring: [Drive] = [], ignoring: [Drive] = []) {
        self.honouring = honouring
        self.ignoring = ignoring
    }

    /// Reads the drives under `blockDirectory` (`/sys/block`: each one's `queue/scheduler` and
    /// `dev`) and the `io.cost.qos` file at the root of the cgroup2 mount, if any. Loop, RAM and
    /// zram devices are left out: they have no scheduler that weighs.
    public static func read(blockDirectory: String = "/sys/block", unifiedMount: String?) -> IOWeightReach {
        guard case .success(let names) = Syscalls.listDirectory(blockDirectory) else { return IOWeightReach() }
        let costText = unifiedMount.flatMap { try? Syscalls.readText($0 + "/io.cost.qos").get() } ?? ""
        let costOn = costEnabledDevices(costText)
        var reach = IOWeightReach()
        for name in names.sorted() where !["loop", "ram", "zram"].contains(where: { name.hasPrefix($0) }) {
            let directory = blockDirectory + "/" + name
            let scheduler = (try? Syscalls.readText(directory + "/queue/scheduler").get()).flatMap(activeScheduler)
            let device = (try? Syscalls.readText(directory + "/dev").get())?.trimmingWhitespace()
            if let device, costOn.contains(device) {
                reach.honouring.append(Drive(name: name, means: "io.cost"))
            } else if scheduler == "bfq" {
                reach.honouring.append(Drive(name: name, means: "bfq"))
            } else {
                reach.ignoring.append(Drive(name: name, means: scheduler ?? "no scheduler"))
            }
        }
        return reach
    }

    /// The scheduler in use in a `queue/scheduler` text: the one in brackets
    /// (`"none [mq-deadline] kyber bfq"` → `mq-deadline`); nil without brackets.
    public static func activeScheduler(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// The devices (`MAJ:MIN`) with `enable=1` in an `io.cost.qos` text.
    public static func costEnabledDevices(_ text: String) -> Set<String> {
        var devices: Set<String> = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let device = fields.first, fields.contains("enable=1") { devices.insert(String(device)) }
        }
        return devices
    }

    /// The start-up log's sentence for a host whose cgroup2 mount offers the io controller.
    public var sentence: String {
        let ignored = ignoring.map { "\($0.name) uses \($0.means)" }.joined(separator: ", ")
        if honouring.isEmpty {
            let drives = ignoring.isEmpty ? "this host has no drive" : ignored
            return "I/O classes written to cgroup2 io.weight, but no drive honours them (\(drives)); "
                + "a drive honours them under the bfq scheduler or with io.cost on."
        }
        let honoured = honouring.map { "\($0.name) (\($0.means))" }.joined(separator: ", ")
        let others = ignoring.map { "\($0.name) (\($0.means))" }.joined(separator: ", ")
        return "I/O classes through cgroup2 io.weight, in effect on \(honoured)"
            + (ignoring.isEmpty ? "." : "; not on \(others).")
    }
}
