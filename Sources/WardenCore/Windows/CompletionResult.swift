/// The result an app reports for a fetch or push window.
public enum CompletionResult: String, Sendable, Hashable, CaseIterable {
    case newData
    case noData
    case failed
}
