/// The room the last memory kill made (rule 9, the culprit who takes the room): what the kill
/// gave back at once and the footprint, at that moment, of every app it left running.
///
/// At a later critical choice, an app that has since grown by at least half of that room
/// (`takesTheRoom(growth:room:)`) goes before the bands, the largest growth first: it took what
/// the kill freed, and another app killed now would only make it more room. The room is kept
/// while the device stays short (warning or critical) and for `keptAfterNormal` once the level
/// is normal again, then forgotten, or replaced by the next memory kill's; an app launched again
/// since starts from nothing and is not counted.
struct RoomGivenBack: Sendable, Equatable {
    /// The app whose kill made the room.
    var victim: String
    /// What its kill gave back at once, bytes (`AppRecord.reclaimable` when it was killed).
    var bytes: Int64
    /// The footprint at the kill of each app left running, at its record's index; nil for an
    /// app that was not running, or was already being terminated.
    var marks: [Mark?]
    /// When the level went back to normal since the kill, while it stays normal: the room is
    /// forgotten `keptAfterNormal` later.
    var normalSince: Instant?

    /// How long the room is kept once the level is back to normal: a runaway that the kill's
    /// own room brought the device out of pressure takes it back within seconds, and is still
    /// the app that took it at the next shortage.
    static let keptAfterNormal: Duration = .seconds(60)

    /// One app's footprint when the room was made, and the launch it belonged to: a later
    /// launch of the app starts from nothing and did not grow into the room.
    struct Mark: Sendable, Equatable {
        var launch: Int
        var footprint: Int64
    }

    /// Whether growing by `growth` bytes since the kill takes its room of `room` bytes: at least
    /// half of it. More than one app can have grown, and the largest growth goes first; half
    /// asks that the app took more of the room than any other app could have beside it.
    static func takesTheRoom(growth: Int64, room: Int64) -> Bool {
        room > 0 && growth > 0 && growth >= room - room / 2
    }
}
