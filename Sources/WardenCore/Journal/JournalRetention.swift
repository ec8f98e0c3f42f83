/// `[journal]`: how much history the journal keeps.
///
/// Both bounds may be set; an entry goes when either says so. The newest entry always stays,
/// so that ids keep increasing after a prune.
public struct JournalRetention: Sendable, Equatable {
    /// Entries older than this go (`keep`, such as `"30d"`); nil keeps entries of any age.
    public var keep: Duration?
    /// At most this many entries stay, the newest (`max_entries`); nil keeps any number.
    public var maxEntries: Int?

    public init(keep: Duration? = .seconds(30 * 86_400), maxEntries: Int? = nil) {
        self.keep = keep
        self.maxEntries = maxEntries
    }

    /// Whether the journal is bounded at all.
    public var isBounded: Bool { keep != nil || maxEntries != nil }
}
