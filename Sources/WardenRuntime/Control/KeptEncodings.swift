import Synchronization

/// The encoding of each value of a large answer or record, kept from one writing to the next,
/// so that only the values that changed are encoded again (`SortedJSONEncoder.Fragment`): the
/// checkpoint after every job, and the app list, with a thousand apps.
struct KeptEncodings<Value: Equatable & Encodable> {
    private var kept: [String: (value: Value, json: [UInt8])] = [:]

    /// The encodings of `values`, in order: those kept where the value is unchanged, the
    /// others encoded now. Keeps these, and forgets values no longer there.
    mutating func fragments(of values: [Value], key: (Value) -> String) throws -> [SortedJSONEncoder.Fragment] {
        try fragments(of: values, keys: values.map(key))
    }

    /// `fragments(of:key:)` with each value's key given, in the same order.
    mutating func fragments(of values: [Value], keys: [String]) throws -> [SortedJSONEncoder.Fragment] {
        var next: [String: (value: Value, json: [UInt8])] = [:]
        next.reserveCapacity(values.count)
        var fragments: [SortedJSONEncoder.Fragment] = []
        fragments.reserveCapacity(values.count)
        for (name, value) in zip(keys, values) {
            let json: [UInt8]
            if let previous = kept[name], previous.value == value {
                json = previous.json
            } else {
                json = try SortedJSONEncoder.encode(value)
            }
            next[name] = (value, json)
            fragments.append(SortedJSONEncoder.Fragment(bytes: json))
        }
        kept = next
        return fragments
    }

    /// Kept encodings that concurrent requests share, one at a time.
    final class Shared: Sendable where Value: Sendable {
        private let state = Mutex(KeptEncodings())

        /// `fragments(of:key:)` under the lock.
        func fragments(of values: [Value], key: (Value) -> String) throws -> [SortedJSONEncoder.Fragment] {
            let keys = values.map(key)
            return try state.withLock { kept in try kept.fragments(of: values, keys: keys) }
        }
    }
}
