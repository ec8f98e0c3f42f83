import CLibcgroup

/// A return code of a libcgroup call, read with appwarden's own table of sentences.
///
/// `cgroup_strerror` is not used: in libcgroup 2.0.2 it is off by one for codes after the gap at
/// 50022 (50023 prints the text of 50022). `ECGOTHER` carries the `errno` that
/// `cgroup_get_last_errno` returns, captured right after the call on the same thread.
struct LibcgroupStatus: Sendable, Hashable {
    /// The raw return code: 0 for success, otherwise an `ECG…` value.
    var code: Int32
    /// For `ECGOTHER`, the system error behind it.
    var systemError: Errno?

    /// Reads the result of a call that just returned `code`.
    init(_ code: Int32) {
        self.code = code
        if code == Int32(ECGOTHER) {
            systemError = Errno(rawValue: cgroup_get_last_errno())
        }
    }

    /// Makes a status from a code and, for `ECGOTHER`, its errno (tests use this).
    init(code: Int32, systemError: Errno?) {
        self.code = code
        self.systemError = systemError
    }

    var isSuccess: Bool { code == 0 }

    /// `ECGEOF`: an iterator reached its end.
    var isEndOfSequence: Bool { code == Int32(ECGEOF) }

    /// The group or process is gone, which is normal during removal or a read.
    var meansVanished: Bool {
        code == Int32(ECGROUPNOTEXIST) || (systemError?.meansVanished ?? false)
    }

    /// The name of the code, such as `ECGROUPNOTEXIST`.
    var name: String {
        Self.table[code]?.name ?? "libcgroup code \(code)"
    }

    /// What the code means, as a sentence fragment.
    var meaning: String {
        if let systemError { return "the system call failed with \(systemError)" }
        return Self.table[code]?.meaning ?? "an unknown failure"
    }

    /// An error saying that `action` on `target` failed, with advice where the code calls for it.
    func error(doing action: String, target: String) -> CgroupError {
        let code: CgroupError.Code
        var advice = ""
        switch self.code {
        case Int32(ECGROUPNOTMOUNTED), Int32(ECGROUPNOTINITIALIZED):
            code = .notMounted
            advice = " " + CgroupError.howToGetAccess
        case Int32(ECGROUPSUBSYSNOTMOUNTED):
            code = .missingController
            advice = " " + CgroupError.howToGetAccess
        case Int32(ECGROUPNOTOWNER), Int32(ECGROUPNOTALLOWED):
            code = .permissionDenied
            advice = " " + CgroupError.howToGetAccess
        case Int32(ECGROUPNOTEXIST):
            code = .notFound
        case Int32(ECGOTHER):
            let errno = systemError?.rawValue ?? 0
            if errno == Errno.accessDenied.rawValue || errno == Errno.notPermitted.rawValue
                || errno == Errno.readOnlyFileSystem.rawValue
            {
                code = .permissionDenied
                advice = " " + CgroupError.howToGetAccess
            } else if systemError?.meansVanished ?? false {
                code = .notFound
            } else {
                code = .libcgroup
            }
        default:
            code = .libcgroup
        }
        return CgroupError(
            code: code,
            message: "Could not \(action) \(target): \(meaning).\(advice)",
            cause: systemError.map { "\(name), \($0)" } ?? name)
    }

    private static let table: [Int32: (name: String, meaning: String)] = [
        Int32(ECGROUPNOTCOMPILED): ("ECGROUPNOTCOMPILED", "libcgroup was built without cgroup support"),
        Int32(ECGROUPNOTMOUNTED): ("ECGROUPNOTMOUNTED", "no cgroup hierarchy is mounted"),
        Int32(ECGROUPNOTEXIST): ("ECGROUPNOTEXIST", "the group does not exist"),
        Int32(ECGROUPNOTCREATED): ("ECGROUPNOTCREATED", "the group could not be created"),
        Int32(ECGROUPSUBSYSNOTMOUNTED): ("ECGROUPSUBSYSNOTMOUNTED", "the controller is not mounted"),
        Int32(ECGROUPNOTOWNER): ("ECGROUPNOTOWNER", "the caller does not own the group"),
        Int32(ECGROUPMULTIMOUNTED): ("ECGROUPMULTIMOUNTED", "the controllers are bound to different mount points"),
        Int32(ECGROUPNOTALLOWED): ("ECGROUPNOTALLOWED", "the operation is not allowed"),
        Int32(ECGMAXVALUESEXCEEDED): ("ECGMAXVALUESEXCEEDED", "too many values were given"),
        Int32(ECGCONTROLLEREXISTS): ("ECGCONTROLLEREXISTS", "the controller was added twice"),
        Int32(ECGVALUEEXISTS): ("ECGVALUEEXISTS", "the value was given twice"),
        Int32(ECGINVAL): ("ECGINVAL", "an argument was invalid"),
        Int32(ECGCONTROLLERCREATEFAILED): ("ECGCONTROLLERCREATEFAILED", "the controller could not be added"),
        Int32(ECGFAIL): ("ECGFAIL", "libcgroup failed"),
        Int32(ECGROUPNOTINITIALIZED): ("ECGROUPNOTINITIALIZED", "libcgroup was not initialised"),
        Int32(ECGROUPVALUENOTEXIST): ("ECGROUPVALUENOTEXIST", "the value does not exist"),
        Int32(ECGOTHER): ("ECGOTHER", "a system call failed"),
        Int32(ECGROUPNOTEQUAL): ("ECGROUPNOTEQUAL", "the groups are not equal"),
        Int32(ECGCONTROLLERNOTEQUAL): ("ECGCONTROLLERNOTEQUAL", "the controllers are not equal"),
        Int32(ECGROUPPARSEFAIL): ("ECGROUPPARSEFAIL", "the rules file could not be parsed"),
        Int32(ECGROUPNORULES): ("ECGROUPNORULES", "there are no rules"),
        Int32(ECGMOUNTFAIL): ("ECGMOUNTFAIL", "the hierarchy could not be mounted"),
        Int32(ECGEOF): ("ECGEOF", "the end of the list was reached"),
        Int32(ECGCONFIGPARSEFAIL): ("ECGCONFIGPARSEFAIL", "the configuration file could not be parsed"),
        Int32(ECGNAMESPACEPATHS): ("ECGNAMESPACEPATHS", "the namespace paths are invalid"),
        Int32(ECGNAMESPACECONTROLLER): ("ECGNAMESPACECONTROLLER", "the namespace controller is invalid"),
        Int32(ECGMOUNTNAMESPACE): ("ECGMOUNTNAMESPACE", "the mount namespace is invalid"),
        Int32(ECGROUPUNSUPP): ("ECGROUPUNSUPP", "the operation is not supported"),
        Int32(ECGCANTSETVALUE): ("ECGCANTSETVALUE", "the value could not be set"),
        Int32(ECGNONEMPTY): ("ECGNONEMPTY", "the group still holds processes or subgroups"),
    ]
}
