public import WardenCore

/// Reads policy files: TOML in, a validated `Policy` out, or every error with its file,
/// line and key.
public enum PolicyLoader {
    /// Reads and validates the policy file at `path`; messages name the file as `path`.
    public static func load(path: String) throws(PolicyError) -> Policy {
        let text = try LocatedDocument.read(path: path, label: "Policy")
        return try parse(text, file: path)
    }

    /// Validates the policy written in `text`; messages name the file as `file`.
    public static func parse(_ text: String, file: String) throws(PolicyError) -> Policy {
        let document = try LocatedDocument(lenientText: text, file: file, label: "Policy")
        return try PolicyComposer.compose(
            base: document, overrides: nil, apps: nil, commandRequired: true, extraAppKeys: [], label: "Policy"
        ).policy
    }
}
