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

    /// One value's kept encoding.
    private struct Kept {
        /// The value as encoded: its countdown, if it has one, replaced by `placeholder`.
        var value: Value
        var json: [UInt8]
        /// Where in `json` the countdown's digits go, when it has one.
        var slot: Int?

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
    private var kept: [String: Kept] = [:]
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
        var next: [String: Kept] = [:]
        next.reserveCapacity(values.count)
        var fragments: [SortedJSONEncoder.Fragment] = []
        fragments.reserveCapacity(values.count)
        for (name, value) in zip(keys, values) {
            var steady = value
            var remaining: Int64?
            if let countdown, let current = value[keyPath: countdown.member] {
                remaining = current
                steady[keyPath: countdown.member] = Self.placeholder
            }
            let entry: Kept
            if let previous = kept[name], previous.value == steady {
                entry = previous
            } else if remaining != nil, let countdown {
                entry = try Self.encode(value, steady: steady, countdown: countdown)
                encodings += 1
            } else {
                entry = Kept(value: steady, json: try SortedJSONEncoder.encode(value))
                encodings += 1
            }
            next[name] = entry
            fragments.append(SortedJSONEncoder.Fragment(bytes: entry.bytes(countdown: remaining)))
        }
        kept = next
        return fragments
    }

    /// The encoding of `steady` with the placeholder's digits taken out and their place kept.
    /// Where the placeholder cannot be found, `value` itself is encoded and kept under itself,
    /// which the next reading (with its steady value) does not take for unchanged.
    private static func encode(_ value: Value, steady: Value, countdown: Countdown) throws -> Kept {
        var json = try SortedJSONEncoder.encode(steady)
        // A string's quotes are escaped inside it, so `"key":` followed by the placeholder is found
        // only as a member: the countdown itself, where no nested object holds the same key with
        // that value (as none of `AppInfo`'s does).
        let marker = Array("\"\(countdown.key)\":\(placeholder)".utf8)
        guard let start = Self.firstIndex(of: marker, in: json) else {
            return Kept(value: value, json: try SortedJSONEncoder.encode(value))
        }
        let digits = String(placeholder).utf8.count
        let slot = start + marker.count - digits
        json.removeSubrange(slot..<(slot + digits))
        return Kept(value: steady, json: json, slot: slot)
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
