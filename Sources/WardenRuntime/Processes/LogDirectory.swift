#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The folder of the apps' log files, `<state>/logs`, closed to the apps' users: one app must
/// not read another's output.
///
/// It is the daemon's (mode 0700), or, where the daemon has an admin group, readable by that
/// group too (mode 2750 and the group's: the log relays' new files, mode 0640, take the group), so
/// that an operator in the group can still run `appwarden logs`. Files an earlier daemon left
/// readable by everyone are closed as well.
enum LogDirectory {
    /// Sets the mode and group of `path` and of the files in it; `operators` is the admin group.
    ///
    /// - Returns: A sentence for each file or folder that could not be closed (nothing when all were).
    static func close(_ path: String, operators: gid_t?) -> [String] {
        var problems: [String] = []
        let group = operators ?? getegid()
        let mode: mode_t = operators == nil ? 0o700 : 0o2750
        if chown(path, geteuid(), group) != 0 || chmod(path, mode) != 0 {
            problems.append("The log folder \"\(path)\" cannot be closed to the apps: \(reason(errno)).")
        }
        guard let stream = opendir(path) else { return problems }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            var info = stat()
            let file = path + "/" + name
            guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if info.st_mode & 0o7027 == 0, info.st_gid == group { continue }
            if chown(file, geteuid(), group) != 0 || chmod(file, info.st_mode & 0o750) != 0 {
                problems.append("The log file \"\(file)\" cannot be closed to the apps: \(reason(errno)).")
            }
        }
        return problems
    }

    private static func reason(_ error: Int32) -> String {
        "\(String(cString: strerror(error))) (errno \(error))"
    }
}
