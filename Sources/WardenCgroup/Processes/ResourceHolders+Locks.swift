extension ResourceHolders {
    /// One line of `/proc/locks`.
    public struct LockEntry: Sendable, Hashable {
        /// The kind of lock, as the kernel names it.
        public enum LockType: String, Sendable, Hashable {
            /// `fcntl(F_SETLK)` record lock, owned by a process.
            case posix = "POSIX"
            /// `flock(2)` lock, owned by an open file description.
            case flock = "FLOCK"
            /// Open file description lock (`F_OFD_SETLK`).
            case ofd = "OFDLCK"
            /// A file lease (`F_SETLEASE`).
            case lease = "LEASE"
            /// An NFS delegation.
            case delegation = "DELEG"
        }

        /// Whether the lock is shared or exclusive.
        public enum Access: String, Sendable, Hashable {
            case read = "READ"
            case write = "WRITE"
            /// A lease being broken.
            case none = "NONE"
        }

        public var type: LockType
        public var access: Access
        /// The owning process as the kernel records it; -1 for open file description locks.
        public var pid: Int32
        public var deviceMajor: UInt32
        public var deviceMinor: UInt32
        public var inode: UInt64
        /// Whether this line is a process waiting for the lock (`->`), not a holder.
        public var isWaiting: Bool
    }

    /// Parses the text of `/proc/locks`.
    ///
    /// Each line reads `ID: [->] TYPE MODE ACCESS PID MAJOR:MINOR:INODE START END`, with the
    /// device numbers in hexadecimal. Lock types this parser does not know are skipped.
    ///
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - source: The file's path, for error messages.
    /// - Throws: `CgroupError` with code `.malformed`, naming the line, when a line does not have that shape.
    public static func parseLocks(_ text: String, source: String = "/proc/locks") throws(CgroupError) -> [LockEntry] {
        var entries: [LockEntry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty { continue }
            func malformed(_ detail: String) -> CgroupError {
                CgroupError.malformed("lock table", path: source, detail: "line \(index + 1) (\"\(line)\") \(detail)")
            }
            guard fields[0].hasSuffix(":") else { throw malformed("does not start with a lock number and a colon") }
            fields.removeFirst()
            let isWaiting = fields.first == "->"
            if isWaiting { fields.removeFirst() }
            guard fields.count >= 5 else { throw malformed("has fewer fields than type, mode, access, pid and file") }
            guard let type = LockEntry.LockType(rawValue: String(fields[0])) else { continue }
            guard let access = LockEntry.Access(rawValue: String(fields[2])) else {
                throw malformed("has the access \"\(fields[2])\" where READ or WRITE was expected")
            }
            guard let pid = Int32(fields[3]) else {
                throw malformed("has the pid \"\(fields[3])\", which is not a number")
            }
            let file = fields[4].split(separator: ":")
            guard file.count == 3, let major = UInt32(file[0], radix: 16), let minor = UInt32(file[1], radix: 16),
                let inode = UInt64(file[2])
            else { throw malformed("has the file \"\(fields[4])\" where MAJOR:MINOR:INODE was expected") }
            entries.append(
                LockEntry(
                    type: type, access: access, pid: pid, deviceMajor: major, deviceMinor: minor, inode: inode,
                    isWaiting: isWaiting
                )
            )
        }
        return entries
    }
}
