public import WardenCore

/// Builds a policy from layers, for policy files and for scenarios.
///
/// The layers are: the base policy file's root (or nil: all defaults, no apps); then a
/// scenario's `[policy]` table (the same schema as a policy file's root: `[policy.memory]`,
/// `[policy.background]`, `[policy.resources.camera]`…) laid over it key by key; then a
/// scenario's `[apps]` table merged onto the base's apps key by key (new apps are added).
/// Every layer is validated as one: every error is collected, each naming its own file,
/// line and key.
public enum PolicyComposer {
    /// Composes and validates a policy.
    ///
    /// - Parameters:
    ///   - base: The policy file, or nil for all defaults and no apps.
    ///   - overrides: A table with the schema of a policy file's root, laid over the base.
    ///   - apps: A table of `[apps.NAME]` tables merged onto the base's apps key by key.
    ///   - commandRequired: Whether every app must have a `command` (true for policy files).
    ///   - extraAppKeys: Keys an app table may hold that the policy does not know (such as a
    ///     scenario's simulation facts); they are not errors and are returned per app.
    ///   - label: The first word of messages about files other than the base: "Policy" or
    ///     "Scenario". Messages about the base file always say "Policy".
    /// - Returns: The policy, and for every app that has any, its extra keys with their values.
    public static func compose(
        base: LocatedDocument?,
        overrides: LocatedTable?,
        apps: LocatedTable?,
        commandRequired: Bool,
        extraAppKeys: Set<String>,
        label: String
    ) throws(PolicyError) -> (policy: Policy, appFacts: [String: [String: LocatedValue]]) {
        var root = base?.root ?? LocatedTable(file: overrides?.file ?? apps?.file ?? "", line: 1)
        if let overrides {
            root = root.merging(overrides)
        }
        if let apps {
            var appsTable = root["apps"]?.table ?? LocatedTable(file: apps.file, line: apps.line, keyPath: apps.keyPath)
            appsTable = appsTable.merging(apps)
            let location =
                root["apps"]
                ?? LocatedValue(value: .table(appsTable), file: apps.file, line: apps.line, keyPath: apps.keyPath)
            root["apps"] = LocatedValue(
                value: .table(appsTable), file: location.file, line: location.line, keyPath: location.keyPath)
        }
        var validator = PolicyValidator(
            commandRequired: commandRequired, extraAppKeys: extraAppKeys,
            baseFile: base?.file, label: label)
        validator.diagnostics += base?.readingDiagnostics ?? []
        let result = validator.policy(from: root)
        guard validator.diagnostics.isEmpty else {
            throw PolicyError(diagnostics: validator.diagnostics)
        }
        return result
    }
}
