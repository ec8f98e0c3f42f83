/// The culprit who takes the room (rule 9): an app that grows into the room the last memory kill
/// made goes next, before the bands, rather than another app that did not.
extension Lifecycle {
    /// How much the app at `index` grew into the room the last memory kill made
    /// (`RoomGivenBack.takesTheRoom`); nil when it did not, when it is still within the size its
    /// finished launches reached (`withinUsualPeak`), or there is no such room.
    func growthIntoRoom(_ index: Int) -> Int64? {
        guard let room = roomGivenBack, index < room.marks.count, let mark = room.marks[index],
            records[index].launch == mark.launch, records[index].state != .notRunning,
            withinUsualPeak(index) == nil
        else { return nil }
        let growth = records[index].footprint - mark.footprint
        return RoomGivenBack.takesTheRoom(growth: growth, room: room.bytes) ? growth : nil
    }

    /// The size the app at `index` reached in its finished launches
    /// (`LaunchMemoryHistory.usualPeak`), when its footprint is still within it: it grows as it
    /// does in each launch, and the room made before its launch counted that size. Nil for an
    /// app past it, or with no finished launch measured.
    func withinUsualPeak(_ index: Int) -> Int64? {
        guard let usual = records[index].memoryHistory?.usualPeak, records[index].footprint <= usual else {
            return nil
        }
        return usual
    }

    /// The app that took the room the last memory kill made: of those the killer may choose
    /// (never protected, in the foreground only with `kill_foreground`), the one that grew the
    /// most into it; ties go to the name that sorts first. Nil when no app took it.
    func roomTaker(killForeground: Bool) -> Int? {
        guard let room = roomGivenBack else { return nil }
        var best: (index: Int, growth: Int64)?
        for index in room.marks.indices where records[index].terminating == nil {
            let state = records[index].state
            guard
                VictimRanking.isEligible(
                    isInForeground: state == .inactive || state == .active, isProtected: records[index].isProtected,
                    killForeground: killForeground),
                let growth = growthIntoRoom(index)
            else { continue }
            if let current = best,
                growth < current.growth
                    || (growth == current.growth && records[index].name > records[current.index].name)
            {
                continue
            }
            best = (index, growth)
        }
        return best?.index
    }

    /// How the app at `index` took the room, for its kill report and `explain`.
    func tookRoom(_ index: Int) -> MemoryKillReport.TookRoom? {
        guard let room = roomGivenBack, let growth = growthIntoRoom(index) else { return nil }
        return MemoryKillReport.TookRoom(growth: growth, room: room.bytes, madeBy: room.victim)
    }

    /// Remembers the room the memory kill of the app at `victim` makes: what it gives back at
    /// once, and the footprint of every other app left running.
    mutating func rememberRoom(madeBy victim: Int) {
        let marks = records.indices.map { index -> RoomGivenBack.Mark? in
            guard index != victim, records[index].state != .notRunning, records[index].terminating == nil else {
                return nil
            }
            return RoomGivenBack.Mark(launch: records[index].launch, footprint: records[index].footprint)
        }
        roomGivenBack = RoomGivenBack(victim: records[victim].name, bytes: records[victim].reclaimable, marks: marks)
    }

    /// Why an app the killer may choose was passed over for `victim`, an app that took the room.
    func whyNotChosen(_ index: Int, forTheRoomTakenBy victim: String, _ tookRoom: MemoryKillReport.TookRoom) -> String {
        let made = "the kill of \"\(tookRoom.madeBy)\""
        if let usual = withinUsualPeak(index) {
            return
                "it is still within the \(DurationFormat.sizeString(usual)) its last launches reached; an app that grew into the room \(made) gave back goes first"
        }
        guard let growth = growthIntoRoom(index) else {
            return
                "it did not grow by half of the \(DurationFormat.sizeString(tookRoom.room)) \(made) gave back; an app that did goes first"
        }
        if growth < tookRoom.growth {
            return
                "it grew by \(DurationFormat.sizeString(growth)) into the room \(made) gave back, less than \"\(victim)\" (\(DurationFormat.sizeString(tookRoom.growth)))"
        }
        return
            "it grew as much into the room \(made) gave back; its name sorts after \"\(victim)\""
    }
}
