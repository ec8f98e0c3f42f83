/// The records the killer may choose from (running, not already being terminated), read in
/// place through the records' buffer.
///
/// An `AppRecord` is large; reading one through an array subscript or a lazy filter copies all of
/// it, and with a thousand suspended apps those copies made a critical memory sample cost a
/// millisecond. Each element here is a pointer to its record, and the ranking reads only the
/// fields it compares.
struct KillableRecords: Collection {
    /// One record, read through its pointer.
    ///
    /// Only stored fields are read through the pointer: a computed property of the pointee
    /// (`AppRecord.band`, `isInForeground`) is called on a copy of the whole record.
    struct Record: KillRankable {
        let pointer: UnsafePointer<AppRecord>

        @inline(__always) var app: String { pointer.pointee.name }
        @inline(__always) var band: KillBand {
            KillBand(
                state: pointer.pointee.state, hasTasks: !pointer.pointee.tasks.isEmpty,
                hasOpenWindow: pointer.pointee.fetchWindowOpen || pointer.pointee.pushWindowOpen
                    || pointer.pointee.accessoryWindow != nil,
                overFairShare: pointer.pointee.bounds.fairShare.map { pointer.pointee.footprint > $0 } ?? false,
                holdsActivity: pointer.pointee.heldActivities != nil)
        }
        @inline(__always) var footprint: Int64 { pointer.pointee.footprint }
        @inline(__always) var swapped: Int64 { pointer.pointee.swappedBytes }
        @inline(__always) var reclaimable: Int64 {
            AppRecord.reclaimable(
                footprint: pointer.pointee.footprint, swapped: pointer.pointee.swappedBytes,
                inRAM: pointer.pointee.swappedInRAM)
        }
        @inline(__always) var lastUsed: Instant { pointer.pointee.lastUsed }
        @inline(__always) var isProtected: Bool { pointer.pointee.isProtected }
        @inline(__always) var openWeight: Double { pointer.pointee.openWeight }
        @inline(__always) var relaunchSize: Int64 { pointer.pointee.relaunchSize }
        @inline(__always) var isInForeground: Bool {
            pointer.pointee.state == .inactive || pointer.pointee.state == .active
        }
    }

    let base: UnsafeBufferPointer<AppRecord>

    var startIndex: Int { firstKillable(from: 0) }
    var endIndex: Int { base.count }

    func index(after position: Int) -> Int {
        firstKillable(from: position + 1)
    }

    subscript(position: Int) -> Record {
        Record(pointer: base.baseAddress! + position)
    }

    @inline(__always)
    private func firstKillable(from start: Int) -> Int {
        var position = start
        while position < base.count {
            let record = base.baseAddress! + position
            guard record.pointee.state == .notRunning || record.pointee.terminating != nil else { break }
            position += 1
        }
        return position
    }
}
