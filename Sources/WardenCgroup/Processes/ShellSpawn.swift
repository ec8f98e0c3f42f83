import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Starts `/bin/sh -c script` through `posix_spawn`, the child with no signal blocked and every
/// signal at its default action, whatever the calling thread blocks or ignores (the daemon's
/// threads block some, and an inherited mask would keep SIGTERM from ending the child), and with
/// no descriptor of the caller's but standard input, output and error.
///
/// For the short shell commands appwarden runs besides its apps: operator hooks, and the
/// processes its benchmarks start. Apps themselves start through `ProcessSpawner`.
public enum ShellSpawn {
    /// Where the child's standard descriptors go.
    public struct Descriptors: Sendable {
        /// Standard input from /dev/null instead of the caller's.
        public var inputFromNull: Bool
        /// Standard output and error into this descriptor instead of the caller's.
        public var output: Int32?

        public init(inputFromNull: Bool = false, output: Int32? = nil) {
            self.inputFromNull = inputFromNull
            self.output = output
        }
    }

    /// Starts the script and returns the child's pid.
    ///
    /// - Parameters:
    ///   - script: The shell command line.
    ///   - environment: The child's whole environment; nil passes on the caller's.
    ///   - descriptors: Where standard input, output and error go.
    ///   - newProcessGroup: Whether the child leads a process group of its own (so that it and
    ///     everything it starts can be signalled together).
    /// - Throws: The `errno` value `posix_spawn` returned.
    public static func start(
        _ script: String, environment: [String: String]? = nil, descriptors: Descriptors = Descriptors(),
        newProcessGroup: Bool = false
    ) throws(Errno) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if descriptors.inputFromNull {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let output = descriptors.output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
        }
        // Nothing but the three standard descriptors: the libraries in this process open some
        // without close-on-exec (the control socket, epoll instances), which a hook, and what it
        // leaves running, would otherwise hold. (A C library without the action keeps them.)
        _ = warden_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        let result = withCStrings(["/bin/sh", "-c", script]) { argv in
            guard let environment else {
                return posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
            }
            let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return withCStrings(variables) { envp in
                posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            }
        }
        guard result == 0 else { throw Errno(rawValue: result) }
        return pid
    }

    private static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
