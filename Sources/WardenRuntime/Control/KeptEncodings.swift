import Synchronization

/// The encoding of each value of a large answer or record, kept from one writing to the next,
/// so that only the values that changed are encoded again (`SortedJSONEncoder.Fragment`): the
/// checkpoint after every job, and the app list, with a thousand apps.
///
/// A member that changes at every reading (the app list's `timeRemainingMillis`, which counts
/// down while an app is in background or suspended) would make every value look changed; named
/// as the `countdown`, its digits are written into the kept encoding instead.
struct KeptEncodings<Value: Equatable & Encodable> {
    /// A member that changes at every reading, and the key it is written under.
    struct Countdown: Sendable {
        let member: any WritableKeyPath<Value, Int64?> & Sendable
        let key: String
    }

    /// One value's kept encoding; a class, so that reading one does not copy the value it holds.
    private final class Kept {
        /// The value's key.
        let name: String
        /// The value as encoded: its countdown, if it has one, replaced by `placeholder`.
        let value: Value
        let json: [UInt8]
        /// Where in `json` the countdown's digits go, when it has one.
        let slot: Int?

        init(name: String, value: Value, json: [UInt8], slot: Int? = nil) {
            self.name = name
            self.value = value
            self.json = json
            self.slot = slot
        }

        /// The encoding with `countdown` written in its slot.
        func bytes(countdown: Int64?) -> [UInt8] {
            guard let slot, let countdown else { return json }
            let digits = String(countdown).utf8
            var bytes: [UInt8] = []
            bytes.reserveCapacity(json.count + digits.count)
            bytes.append(contentsOf: json[..<slot])
            bytes.append(contentsOf: digits)
            bytes.append(contentsOf: json[slot...])
            return bytes
        }
    }

    /// What a countdown is encoded as, to find where its digits go; no countdown is negative.
    private static var placeholder: Int64 { .min }

    private let countdown: Countdown?
    /// The kept encodings in the order of the last writing (nil: not encoded yet), so that a list
    /// in the same order as the last one is matched place by place, without a copy of each entry.
    private var kept: [Kept?] = []
    /// How many values were encoded, over all writings (the others were kept).
    private(set) var encodings = 0

    init(countdown: Countdown? = nil) {
        self.countdown = countdown
    }

    /// The encodings of `values`, in order: those kept where the value is unchanged, the
    /// others encoded now. Keeps these, and forgets values no longer there.
    mutating func fragments(of values: [Value], key: (Value) -> String) throws -> [SortedJSONEncoder.Fragment] {
        try fragments(of: values, keys: values.map(key))
    }

    /// `fragments(of:key:)` with each value's key given, in the same order.
    mutating func fragments(of values: [Value], keys: [String]) throws -> [SortedJSONEncoder.Fragment] {
        align(to: keys)
        var fragments: [SortedJSONEncoder.Fragment] = []
        fragments.reserveCapacity(values.count)
        // Through the buffer, each value is read in place rather than copied out of the array.
        try values.withUnsafeBufferPointer { values in
            for position in values.indices {
                let remaining = countdown.flatMap { values[position][keyPath: $0.member] }
                if !isKept(values[position], counting: remaining, at: position) {
                    kept[position] = try encode(values[position], counting: remaining, name: keys[position])
                    encodings += 1
                }
                fragments.append(SortedJSONEncoder.Fragment(bytes: kept[position]!.bytes(countdown: remaining)))
            }
        }
        return fragments
    }

    /// Puts the kept encodings in the order of `keys`, when it is not theirs already: those of
    /// keys no longer there are forgotten, new keys have none.
    private mutating func align(to keys: [String]) {
        guard kept.count != keys.count || !keys.indices.allSatisfy({ kept[$0]?.name == keys[$0] }) else { return }
        var byName: [String: Kept] = [:]
        for entry in kept { if let entry { byName[entry.name] = entry } }
        kept = keys.map { byName[$0] }
    }

    /// Whether the encoding kept at `position` is `value`'s (its countdown, `remaining`, aside).
    private func isKept(_ value: Value, counting remaining: Int64?, at position: Int) -> Bool {
        guard let entry = kept[position] else { return false }
        guard remaining != nil, let countdown else { return entry.slot == nil && entry.value == value }
        guard entry.slot != nil else { return false }
        var steady = value
        steady[keyPath: countdown.member] = Self.placeholder
        return entry.value == steady
    }

    /// A new kept encoding of `value`, its countdown's place found where it has one.
    private func encode(_ value: Value, counting remaining: Int64?, name: String) throws -> Kept {
        guard remaining != nil, let countdown else {
            return Kept(name: name, value: value, json: try SortedJSONEncoder.encode(value))
        }
        var steady = value
        steady[keyPath: countdown.member] = Self.placeholder
        return try Self.encode(value, steady: steady, countdown: countdown, name: name)
    }

    /// The encoding of `steady` with the placeholder's digits taken out and their place kept.
    /// Where the placeholder cannot be found, `value` itself is encoded and kept under itself,
    /// which the next reading (with its steady value) does not take for unchanged.
    private static func encode(_ value: Value, steady: Value, countdown: Countdown, name: String) throws -> Kept {
        var json = try SortedJSONEncoder.encode(steady)
        // A string's quotes are escaped inside it, so `"key":` followed by the placeholder is found
        // only as a member: the countdown itself, where no nested object holds the same key with
        // that value (as none of `AppInfo`'s does).
        let marker = Array("\"\(countdown.key)\":\(placeholder)".utf8)
        guard let start = Self.firstIndex(of: marker, in: json) else {
            return Kept(name: name, value: value, json: try SortedJSONEncoder.encode(value))
        }
        let digits = String(placeholder).utf8.count
        let slot = start + marker.count - digits
        json.removeSubrange(slot..<(slot + digits))
        return Kept(name: name, value: steady, json: json, slot: slot)
    }

    private static func firstIndex(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard marker.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) { return start }
        }
        return nil
    }

    /// Kept encodings that concurrent requests share, one at a time.
    final class Shared: Sendable where Value: Sendable {
        private let state: Mutex<KeptEncodings>

        init(countdown: Countdown? = nil) {
            state = Mutex(KeptEncodings(countdown: countdown))
        }

        /// How many values were encoded, over all writings.
        var encodings: Int { state.withLock { $0.encodings } }

        /// `fragments(of:key:)` under the lock.
        func fragments(of values: [Value], key: (Value) -> String) throws -> [SortedJSONEncoder.Fragment] {
            let keys = values.map(key)
            return try state.withLock { kept in try kept.fragments(of: values, keys: keys) }
        }
    }
}
