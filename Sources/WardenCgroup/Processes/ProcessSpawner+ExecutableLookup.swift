#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ProcessSpawner {
    /// The search path used when neither the request's environment nor appwarden's has `PATH`.
    public static let defaultSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// Finds the program an app's launch would execute, with the same search path as `spawn`: the
    /// app's own `PATH`, else appwarden's, else `defaultSearchPath`.
    ///
    /// - Throws: `CgroupError` (`.notFound`) with a sentence naming the program and where it was looked for.
    public static func locateExecutable(
        _ executable: String, environment: [String: String], workingDirectory: String
    ) throws(CgroupError) -> String {
        let searchPath = environment["PATH"] ?? getenv("PATH").map { String(cString: $0) } ?? defaultSearchPath
        return try resolveExecutable(
            executable, searchPath: searchPath, workingDirectory: workingDirectory,
            isExecutable: Syscalls.isExecutableFile)
    }

    /// Finds the program to execute, as `execvp` would, but before the child exists.
    ///
    /// A name with a slash is taken as a path (relative ones against `workingDirectory`); a bare
    /// name is looked up in each directory of `searchPath` in turn.
    ///
    /// - Parameters:
    ///   - executable: The program as the policy names it.
    ///   - searchPath: A colon-separated list of directories; empty entries mean the working directory.
    ///   - workingDirectory: The directory the child starts in.
    ///   - isExecutable: Whether a path is an executable regular file (a parameter so tests can
    ///     pass a fake file system).
    /// - Returns: An absolute path.
    public static func resolveExecutable(
        _ executable: String,
        searchPath: String,
        workingDirectory: String,
        isExecutable: (String) -> Bool
    ) throws(CgroupError) -> String {
        guard !executable.isEmpty else {
            throw CgroupError(
                code: .notFound,
                message: "The program to start is empty; name a program such as \"/usr/bin/env\".",
                cause: "empty executable"
            )
        }
        if executable.contains("/") {
            let path = executable.hasPrefix("/") ? executable : join(workingDirectory, executable)
            guard isExecutable(path) else {
                throw CgroupError(
                    code: .notFound,
                    message: "The program \"\(path)\" does not exist or is not an executable file.",
                    cause: "ENOENT or EACCES"
                )
            }
            return path
        }
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let base = directory.isEmpty ? workingDirectory : String(directory)
            let candidate = join(base, executable)
            if isExecutable(candidate) {
                return candidate.hasPrefix("/") ? candidate : join(workingDirectory, candidate)
            }
        }
        throw CgroupError(
            code: .notFound,
            message: "The program \"\(executable)\" was not found in any directory of PATH (\(searchPath)).",
            cause: "ENOENT"
        )
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
