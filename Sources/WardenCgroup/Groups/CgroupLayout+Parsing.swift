extension CgroupLayout {
    /// Detects the layout from the text of `/proc/self/mountinfo` and `/proc/self/cgroup`.
    ///
    /// - Parameters:
    ///   - mountinfo: The text of `/proc/self/mountinfo`.
    ///   - cgroup: The text of `/proc/self/cgroup`.
    ///   - unifiedControllers: The text of `cgroup.controllers` at the root of the cgroup2 mount,
    ///     if there is one (space-separated controller names).
    /// - Throws: `CgroupError` with code `malformed` when a cgroup line cannot be understood.
    public static func parse(
        mountinfo: String,
        cgroup: String,
        unifiedControllers: String = ""
    ) throws(CgroupError) -> CgroupLayout {
        var layout = CgroupLayout()
        for (index, line) in mountinfo.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let separator = fields.firstIndex(of: "-") else {
                throw .malformed(
                    "mount table line \(index + 1)", path: "/proc/self/mountinfo",
                    detail: "it has no \" - \" separator")
            }
            guard separator >= 6, fields.count >= separator + 4 else {
                throw .malformed(
                    "mount table line \(index + 1)", path: "/proc/self/mountinfo",
                    detail: "it has too few fields")
            }
            let fileSystem = fields[separator + 1]
            let mountRoot = unescape(fields[3])
            let mountPoint = unescape(fields[4])
            switch fileSystem {
            case "cgroup2":
                if layout.unifiedMountPoint == nil {
                    layout.unifiedMountPoint = mountPoint
                    layout.unifiedMountRoot = mountRoot
                }
            case "cgroup":
                let options = fields[separator + 3].split(separator: ",").map(String.init)
                let controllers = Set(
                    options.filter { option in
                        !["rw", "ro", "relatime", "noatime", "nosuid", "nodev", "noexec", "clone_children"]
                            .contains(option)
                            && !option.hasPrefix("release_agent=") && !option.hasPrefix("xattr")
                            && !option.hasPrefix("cpuset_v2_mode") && option != "noprefix"
                    })
                let hierarchy = Hierarchy(mountPoint: mountPoint, mountRoot: mountRoot, controllers: controllers)
                for controller in controllers where layout.v1Hierarchies[controller] == nil {
                    layout.v1Hierarchies[controller] = hierarchy
                }
            default:
                continue
            }
        }
        if layout.unifiedMountPoint != nil {
            layout.unifiedControllers = Set(
                unifiedControllers.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        }
        for (index, line) in cgroup.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, Int(parts[0]) != nil else {
                throw .malformed(
                    "membership line \(index + 1) (\"\(line)\")", path: "/proc/self/cgroup",
                    detail: "a line must read HIERARCHY-ID:CONTROLLERS:PATH")
            }
            let path = String(parts[2])
            if parts[0] == "0" && parts[1].isEmpty {
                layout.ownUnifiedPath = path
            } else {
                for controller in parts[1].split(separator: ",") {
                    layout.ownV1Paths[String(controller)] = path
                }
            }
        }
        return layout
    }

    /// Reads the layout of the running host.
    ///
    /// - Parameter procRoot: The directory holding `mountinfo` and `cgroup` (`/proc/self`).
    /// - Throws: `CgroupError` when the files cannot be read or parsed.
    public static func read(procRoot: String = "/proc/self") throws(CgroupError) -> CgroupLayout {
        let mountinfoPath = procRoot + "/mountinfo"
        let cgroupPath = procRoot + "/cgroup"
        let mountinfo: String
        let cgroup: String
        switch Syscalls.readText(mountinfoPath) {
        case .success(let text): mountinfo = text
        case .failure(let error): throw .from(error, "read the mount table", path: mountinfoPath)
        }
        switch Syscalls.readText(cgroupPath) {
        case .success(let text): cgroup = text
        case .failure(let error): throw .from(error, "read the cgroup membership", path: cgroupPath)
        }
        var layout = try parse(mountinfo: mountinfo, cgroup: cgroup)
        if let mountPoint = layout.unifiedMountPoint,
            case .success(let text) = Syscalls.readText(mountPoint + "/cgroup.controllers")
        {
            layout = try parse(mountinfo: mountinfo, cgroup: cgroup, unifiedControllers: text)
        }
        return layout
    }

    /// Decodes the octal escapes (`\040` for a space) that mountinfo uses in paths.
    static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An error saying that no cgroup file system is mounted, with what appwarden needs.
    public static var notMountedError: CgroupError {
        CgroupError(
            code: .notMounted,
            message: "No cgroup file system is mounted (looked in \"/proc/self/mountinfo\"). "
                + CgroupError.howToGetAccess,
            cause: "no cgroup or cgroup2 mount")
    }
}
