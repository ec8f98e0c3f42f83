import FoundationEssentials
import Logging
import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The folder that is an app's own, `<state>/apps/APP`, with its restoration directory inside,
/// both owned by the user the app runs as and closed to every other user (mode 0700), so that
/// one app cannot read another's saved state.
///
/// An app that runs as another user than the daemon's has the folder as its `HOME`. A folder
/// that belongs to someone else (made by a daemon that did not hand it over, or for an app whose
/// `user` changed) is handed over whole, without following a symbolic link, at the next launch;
/// a restoration directory left at the former place, `<state>/restoration/APP`, is moved in.
struct AppFolder: Sendable {
    /// The folder, the app's `HOME` when it runs as another user.
    let path: String
    /// The restoration directory (`APPWARDEN_RESTORATION_DIR`), inside the folder.
    let restoration: String
    /// Where an earlier daemon kept the restoration directory.
    let formerRestoration: String

    /// The folder of `app` in the daemon's state directory.
    init(of app: String, options: WardenDaemonOptions) {
        path = options.appDirectory(of: app)
        restoration = options.restorationDirectory(of: app)
        formerRestoration = options.formerRestorationDirectory(of: app)
    }

    /// Makes the folder and its restoration directory where they are missing (moving in the
    /// former restoration directory), gives both to `owner` (everything in them too when the
    /// folder belonged to someone else) and closes them to other users.
    ///
    /// - Throws: `AppFolderError`, a sentence naming the path and the system's reason.
    func prepare(owner: (uid: uid_t, gid: gid_t)) throws(AppFolderError) {
        try Self.makeDirectory(path)
        if access(restoration, F_OK) != 0, access(formerRestoration, F_OK) == 0 {
            guard rename(formerRestoration, restoration) == 0 else {
                throw AppFolderError(path: formerRestoration, "could not be moved to \"\(restoration)\"", errno)
            }
            // The former folder of every app's restoration directory goes with the last of them.
            rmdir(String(formerRestoration[..<(formerRestoration.lastIndex(of: "/") ?? formerRestoration.endIndex)]))
        }
        try Self.makeDirectory(restoration)
        var info = stat()
        guard lstat(path, &info) == 0 else { throw AppFolderError(path: path, "cannot be read", errno) }
        if info.st_uid != owner.uid || info.st_gid != owner.gid {
            let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { throw AppFolderError(path: path, "cannot be opened", errno) }
            try Self.handOver(folder, at: path, to: owner)
        }
        for directory in [path, restoration] {
            guard chown(directory, owner.uid, owner.gid) == 0, chmod(directory, 0o700) == 0 else {
                throw AppFolderError(path: directory, "cannot be given to the app's user", errno)
            }
        }
    }

    /// The first directory above the folder that `user` (its ids and supplementary groups) may not
    /// pass through (no search permission for it: a state directory of mode 0700, say), as a
    /// sentence; nil when every existing one lets it through, or when it is root. A directory not
    /// made yet is the daemon's to make, and passable.
    func blockedPassage(for user: (uid: uid_t, gid: gid_t, groups: [gid_t])) -> String? {
        Self.blockedPassage(to: path, for: user)
    }

    /// `blockedPassage(for:)` for the folder at `path`.
    static func blockedPassage(to path: String, for user: (uid: uid_t, gid: gid_t, groups: [gid_t])) -> String? {
        guard user.uid != 0 else { return nil }
        var above = ""
        for component in path.split(separator: "/").dropLast() {
            above += "/" + component
            var info = stat()
            guard stat(above, &info) == 0 else { return nil }
            let mode = info.st_mode
            let passes: Bool =
                if info.st_uid == user.uid {
                    mode & S_IXUSR != 0
                } else if info.st_gid == user.gid || user.groups.contains(info.st_gid) {
                    mode & S_IXGRP != 0
                } else {
                    mode & S_IXOTH != 0
                }
            if !passes {
                let octal = String(mode & 0o7777, radix: 8)
                return "its user (uid \(user.uid)) cannot pass through \"\(above)\" (mode 0\(octal), owner "
                    + "\(info.st_uid):\(info.st_gid)), so its folder \"\(path)\" (its HOME and restoration "
                    + "directory) is out of its reach; let others search that directory (chmod o+x) or give "
                    + "the app's group search permission."
            }
        }
        return nil
    }

    /// `mkdir(2)` with mode 0700; an existing directory is fine.
    private static func makeDirectory(_ path: String) throws(AppFolderError) {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw AppFolderError(path: path, "cannot be made", errno)
        }
    }

    /// Gives the directory open on `descriptor` and everything in it to `owner` (`fchown(2)`,
    /// `fchownat(2)` with `AT_SYMLINK_NOFOLLOW`), descending only into real directories, each
    /// opened with `O_NOFOLLOW`. Closes `descriptor`.
    private static func handOver(
        _ descriptor: Int32, at path: String, to owner: (uid: uid_t, gid: gid_t)
    ) throws(AppFolderError) {
        guard fchown(descriptor, owner.uid, owner.gid) == 0 else {
            let error = errno
            close(descriptor)
            throw AppFolderError(path: path, "cannot be given to the app's user", error)
        }
        for (name, isDirectory) in entries(of: descriptor) {
            if isDirectory {
                let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 {
                    do {
                        try handOver(child, at: path + "/" + name, to: owner)
                    } catch {
                        close(descriptor)
                        throw error
                    }
                    continue
                }
            }
            guard fchownat(descriptor, name, owner.uid, owner.gid, AT_SYMLINK_NOFOLLOW) == 0 else {
                let error = errno
                close(descriptor)
                throw AppFolderError(path: path + "/" + name, "cannot be given to the app's user", error)
            }
        }
        close(descriptor)
    }

    /// The names in the directory open on `descriptor` (not `.` and `..`), and whether each is a
    /// directory itself (`fstatat(2)` with `AT_SYMLINK_NOFOLLOW`: a link is not one).
    private static func entries(of descriptor: Int32) -> [(name: String, isDirectory: Bool)] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        var found: [(name: String, isDirectory: Bool)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            let isDirectory =
                fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            found.append((name, isDirectory))
        }
        return found
    }
}

/// Why an app's folder could not be prepared, in words.
extension AppFolder {
    /// Makes `app`'s folder and restoration directory ready for its launch, owned by the user it
    /// runs as (the daemon's own without one) and closed to other users; a failure does not stop
    /// the launch. Returns the folder and the problems, each with its cause, for the
    /// daemon's warnings that are said once.
    static func ready(for app: String, user: SpawnRequest.User?, options: WardenDaemonOptions)
        -> (AppFolder, problems: [(cause: String, message: String)])
    {
        var problems: [(cause: String, message: String)] = []
        let folder = AppFolder(of: app, options: options)
        // A user that cannot be found fails the spawn itself, with a sentence of its own.
        if user != nil, user?.ids == nil { return (folder, []) }
        let owner = user?.ids.map { (uid: uid_t($0.uid), gid: gid_t($0.gid)) } ?? (geteuid(), getegid())
        do {
            // The folder of all the apps' folders stays open for each app's user to pass through.
            let apps = String(folder.path[..<(folder.path.lastIndex(of: "/") ?? folder.path.endIndex)])
            try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
            try folder.prepare(owner: owner)
        } catch {
            problems.append(("folder", "Could not prepare the folder of app \"\(app)\": \(error)"))
        }
        if let identity = user?.identity, let blocked = folder.blockedPassage(for: identity) {
            problems.append(("folder-reach", "App \"\(app)\": \(blocked)"))
        }
        return (folder, problems)
    }

    /// Deletes the app's restoration directory (and the one an older layout kept); a failure is
    /// logged.
    static func deleteRestorationState(of app: String, options: WardenDaemonOptions, logger: Logger) {
        for path in [options.restorationDirectory(of: app), options.formerRestorationDirectory(of: app)] {
            do {
                if FileManager.default.fileExists(atPath: path) {
                    try FileManager.default.removeItem(atPath: path)
                }
            } catch {
                logger.warning("Could not delete the restoration directory \"\(path)\": \(error)")
            }
        }
    }
}

struct AppFolderError: Error, CustomStringConvertible {
    let description: String

    init(path: String, _ problem: String, _ error: Int32) {
        description = "\"\(path)\" \(problem): \(String(cString: strerror(error))) (errno \(error))."
    }
}
