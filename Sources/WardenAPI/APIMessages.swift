/// The sentences of refusals that both the daemon and the command line give, spelled once so
/// that the same mistake reads the same wherever it is caught.
public enum APIMessages {
    /// A completion result other than `newData`, `noData` or `failed`.
    public static func invalidResult(_ text: String) -> String {
        "The result must be \"newData\", \"noData\" or \"failed\", not \"\(text)\"."
    }

    /// A fetch interval that is not `minimum`, `never` or a duration.
    public static func invalidFetchInterval(_ text: String) -> String {
        "The fetch interval must be \"minimum\", \"never\" or a duration such as \"15m\", not \"\(text)\"."
    }

    /// A reported status other than `foreground` or `background`.
    public static func invalidStatus(_ text: String) -> String {
        "An app reports its status as \"foreground\" or \"background\", not \"\(text)\"."
    }
}
