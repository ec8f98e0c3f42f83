#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the `appwarden-relay` program is, which each app's log relay execs once it has left
/// the daemon's process.
///
/// A relay is forked from the daemon; staying in that fork, it would keep the daemon's memory as
/// it was at the fork, and every page the daemon changes afterwards would be copied for it
/// (about 5 MiB per relay with a thousand apps). The program keeps only its own few pages.
public enum LogRelayProgram {
    /// The program next to this process's executable (a build directory, where the tests and
    /// the benchmarks run too), else where the package installs it; nil when neither can be run,
    /// and the relays then stay in their forks.
    public static let path: String? = candidates(executable: executablePath()).first { access($0, X_OK) == 0 }

    /// What the daemon says once when it starts without the program (nil when it has it): where
    /// it looked, and what each app's relay costs without it.
    public static var absence: String? {
        path == nil ? absence(searched: candidates(executable: executablePath())) : nil
    }

    /// The sentence for `absence`, naming the places searched.
    static func absence(searched: [String]) -> String {
        "The log relay program is not at \(searched.map { "\"\($0)\"" }.joined(separator: " or ")): each app's "
            + "log relay stays a fork of the daemon and keeps a copy of every page the daemon changes after "
            + "it, megabytes per app. Install it with the package, or put appwarden-relay beside the "
            + "appwarden executable."
    }

    /// Where to look, in order, for a process whose executable is `executable`.
    static func candidates(executable: String?) -> [String] {
        var paths: [String] = []
        if let executable, let slash = executable.lastIndex(of: "/") {
            paths.append(String(executable[..<slash]) + "/appwarden-relay")
        }
        paths.append("/usr/lib/appwarden/appwarden-relay")
        return paths
    }

    /// This process's executable, from `readlink(2)` of `/proc/self/exe`.
    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
