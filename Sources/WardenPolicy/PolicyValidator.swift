import WardenCore

/// Turns a located policy table into a `Policy`, collecting every problem on the way.
struct PolicyValidator {
    var commandRequired: Bool
    var extraAppKeys: Set<String>
    var baseFile: String?
    var label: String
    var diagnostics: [PolicyDiagnostic] = []

    init(commandRequired: Bool, extraAppKeys: Set<String>, baseFile: String?, label: String) {
        self.commandRequired = commandRequired
        self.extraAppKeys = extraAppKeys
        self.baseFile = baseFile
        self.label = label
    }

    mutating func policy(from root: LocatedTable) -> (policy: Policy, appFacts: [String: [String: LocatedValue]]) {
        (Policy(), [:])
    }
}
