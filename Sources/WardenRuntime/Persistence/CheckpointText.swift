/// The checkpoint as the daemon saves it: its text with each list of records left out, and the
/// records of those lists that changed since the last save, so that a save writes only what
/// changed. With a thousand apps the whole text is about 600 KB; a save after one app's change
/// writes one record of a few hundred bytes and the rest of the text.
///
/// The text left (`outline`) holds a mark in place of each list, a raw control character that
/// JSON text never holds outside a string and writes escaped inside one; `assemble` puts the
/// records back where the marks are, in order, and gives the text the whole checkpoint encodes
/// to.
public struct CheckpointText: Sendable, Equatable {
    /// A list of records kept apart from the outline.
    public enum Section: String, CaseIterable, Sendable {
        /// The core's app records (`lifecycle.apps`).
        case apps
        /// The running apps' records (`running`).
        case running

        /// What the outline holds in place of the list's elements.
        var mark: [UInt8] { [0x01] + Array(rawValue.utf8) }
    }

    /// One record of a section: where it goes in the list, and its JSON text.
    public struct Record: Sendable, Equatable {
        public var section: Section
        /// The record's key in its section (an app's name).
        public var name: String
        /// Where the record goes in its list, from 0.
        public var position: Int
        public var json: String

        public init(section: Section, name: String, position: Int, json: String) {
            self.section = section
            self.name = name
            self.position = position
            self.json = json
        }
    }

    /// A record no longer in its section.
    public struct Removal: Sendable, Equatable {
        public var section: Section
        public var name: String

        public init(section: Section, name: String) {
            self.section = section
            self.name = name
        }
    }

    /// The checkpoint's text with a mark in place of each section's records.
    public var outline: String
    /// The records new or changed since the last save that succeeded (every record when
    /// `complete`); a save that failed was rolled back, so the next one compares with the one before.
    public var changed: [Record]
    /// The records gone since the last save that succeeded.
    public var removed: [Removal]
    /// Whether `changed` lists every record, so that records saved before and not listed are
    /// gone: the first save of a daemon, whose journal may hold an earlier daemon's records.
    public var complete: Bool

    public init(outline: String, changed: [Record], removed: [Removal] = [], complete: Bool) {
        self.outline = outline
        self.changed = changed
        self.removed = removed
        self.complete = complete
    }

    /// The whole text of a checkpoint: `outline` with each section's mark replaced by the
    /// texts of its records (`records(section)`, in order). An outline without marks (a
    /// checkpoint saved whole) is the whole text already.
    public static func assemble(outline: String, records: (Section) throws -> [String]) rethrows -> String {
        var text = Array(outline.utf8)
        guard text.contains(0x01) else { return outline }
        for section in Section.allCases {
            guard let range = text.firstRange(of: section.mark) else { continue }
            var list: [UInt8] = []
            for (index, record) in try records(section).enumerated() {
                if index > 0 { list.append(UInt8(ascii: ",")) }
                list.append(contentsOf: record.utf8)
            }
            text.replaceSubrange(range, with: list)
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The records of a checkpoint's sections as a journal keeps them between saves: what
/// `JournalStore` keeps in its table, and `WardenMemoryJournal` in memory.
struct CheckpointRecords: Sendable {
    private var sections: [CheckpointText.Section: [String: CheckpointText.Record]] = [:]

    /// Takes the changes `text` carries.
    mutating func apply(_ text: CheckpointText) {
        if text.complete { sections = [:] }
        for removal in text.removed { sections[removal.section]?[removal.name] = nil }
        for record in text.changed { sections[record.section, default: [:]][record.name] = record }
    }

    /// The texts of `section`'s records, in order.
    func texts(of section: CheckpointText.Section) -> [String] {
        (sections[section] ?? [:]).values.sorted { $0.position < $1.position }.map(\.json)
    }

    /// The whole text of the checkpoint whose outline is `outline`.
    func assemble(_ outline: String) -> String {
        CheckpointText.assemble(outline: outline, records: texts(of:))
    }
}
