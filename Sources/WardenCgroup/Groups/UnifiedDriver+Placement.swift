#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension UnifiedDriver {
    /// Where the app groups go, worked out from the layout alone.
    struct ResolvedPlacement: Equatable {
        /// The placement in effect (never `automatic`).
        var placement: CgroupConfiguration.Placement
        /// The group that holds appwarden's root group.
        var baseDirectory: String
        /// The leaf that the base group's own processes move into before controllers are enabled
        /// for its children; nil when the base group holds no processes of its own.
        var leafName: String?
    }

    /// Resolves `configuration.placement` for a daemon whose cgroup2 group is `ownDirectory`.
    ///
    /// Under systemd the layout must survive `systemctl restart`: systemd places the new main
    /// process in the group it was started in, which fails when that group has controllers
    /// enabled for its children (the "no internal processes" rule). So the daemon enables
    /// controllers only where systemd will not place a process: in its own group when systemd
    /// already started it in the `daemon` leaf (`DelegateSubgroup=daemon`, systemd 254 and
    /// later), and otherwise in a scope unit of its own beside the service.
    ///
    /// - Throws: `CgroupError` with code `notFound` when a placement under the daemon's own group
    ///   is asked for but that group is unknown.
    static func resolvePlacement(
        configuration: CgroupConfiguration, mountPoint: String, ownDirectory: String?, underSystemd: Bool,
        memoryOnUnified: Bool
    ) throws(CgroupError) -> ResolvedPlacement {
        var placement = configuration.placement
        if placement == .automatic {
            guard underSystemd, let own = ownDirectory, own != mountPoint else {
                return ResolvedPlacement(placement: .hierarchyRoot, baseDirectory: mountPoint)
            }
            let startedInLeaf = lastComponent(of: own) == configuration.daemonLeafName
            placement = startedInLeaf || !memoryOnUnified ? .delegated : .systemdScope
        }
        switch placement {
        case .hierarchyRoot, .automatic:
            return ResolvedPlacement(placement: .hierarchyRoot, baseDirectory: mountPoint)
        case .delegated, .systemdScope:
            guard let own = ownDirectory else {
                throw CgroupError(
                    code: .notFound,
                    message: "appwarden was asked to place its groups under its own systemd unit, but its cgroup2 "
                        + "group could not be found in \"/proc/self/cgroup\" under \"\(mountPoint)\". Run it "
                        + "under systemd with Delegate=yes, or choose the hierarchy-root placement and run it as root.",
                    cause: "no usable 0:: line")
            }
            if placement == .systemdScope {
                return ResolvedPlacement(
                    placement: .systemdScope, baseDirectory: parent(of: own) + "/" + configuration.scopeUnitName,
                    leafName: "keeper")
            }
            if lastComponent(of: own) == configuration.daemonLeafName {
                return ResolvedPlacement(placement: .delegated, baseDirectory: parent(of: own))
            }
            return ResolvedPlacement(placement: .delegated, baseDirectory: own, leafName: configuration.daemonLeafName)
        }
    }

    /// Starts the scope unit that holds the app groups, unless its group exists already.
    ///
    /// `systemd-run --scope` registers the scope through systemd's `StartTransientUnit` with
    /// `Delegate=yes` and then runs `sleep infinity` in it as the keeper, so that the scope lives
    /// on while no app runs and across restarts of the daemon, as container managers keep theirs.
    func startScopeIfNeeded() async throws(CgroupError) {
        if access(baseDirectory, F_OK) == 0 { return }
        let slice = Self.lastComponent(of: Self.parent(of: baseDirectory))
        let sliceOption = slice.hasSuffix(".slice") ? " --slice=\(slice)" : ""
        let command =
            "systemd-run --quiet --scope --unit=\(configuration.scopeUnitName)\(sliceOption) "
            + "--description='appwarden apps' --property=Delegate=yes sleep infinity </dev/null >/dev/null 2>&1 &"
        let arguments = ["/bin/sh", "-c", command]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ)
        guard spawned == 0 else {
            throw .from(
                Errno(rawValue: spawned), "start the scope for the apps with systemd-run in", path: baseDirectory)
        }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        for _ in 0..<300 {
            if let keepers = try? files.processes(in: baseDirectory), !keepers.isEmpty { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
        throw CgroupError(
            code: .notFound,
            message: "systemd-run did not start the scope \"\(configuration.scopeUnitName)\" for the apps within 30 s; "
                + "check that systemd-run is installed and \"journalctl -u \(configuration.scopeUnitName)\".",
            cause: "\(baseDirectory) has no processes")
    }

    static func parent(of directory: String) -> String {
        guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { return "/" }
        return String(directory[..<slash])
    }

    static func lastComponent(of directory: String) -> String {
        guard let slash = directory.lastIndex(of: "/") else { return directory }
        return String(directory[directory.index(after: slash)...])
    }
}
