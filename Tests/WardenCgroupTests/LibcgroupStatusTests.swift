import CLibcgroup
import Testing

@testable import WardenCgroup

/// appwarden's own reading of libcgroup return codes.
struct LibcgroupStatusTests {
    /// ECGEOF (50023) is read as the end of a list, not as the text of 50022 that cgroup_strerror prints.
    @Test func codesAfterTheGapAreNotOffByOne() {
        let end = LibcgroupStatus(code: Int32(ECGEOF), systemError: nil)
        #expect(end.isEndOfSequence)
        #expect(end.name == "ECGEOF")
        let nonEmpty = LibcgroupStatus(code: Int32(ECGNONEMPTY), systemError: nil)
        #expect(nonEmpty.meaning.contains("still holds processes"))
    }

    /// ECGOTHER with EACCES becomes a permission error that says how to get access.
    @Test func systemPermissionErrorsCarryAdvice() {
        let status = LibcgroupStatus(code: Int32(ECGOTHER), systemError: .accessDenied)
        let error = status.error(doing: "create", target: "the group \"appwarden/mail\" in the memory hierarchy")
        #expect(error.code == .permissionDenied)
        #expect(error.message.contains("appwarden/mail"))
        #expect(error.message.contains("Delegate=yes"))
        #expect(error.description.hasPrefix("permissionDenied: Could not create"))
        #expect(error.cause.contains("EACCES"))
    }

    /// A group that does not exist is a vanished group, which removal and reads ignore.
    @Test func missingGroupMeansVanished() {
        #expect(LibcgroupStatus(code: Int32(ECGROUPNOTEXIST), systemError: nil).meansVanished)
        #expect(LibcgroupStatus(code: Int32(ECGOTHER), systemError: .noSuchFile).meansVanished)
        #expect(!LibcgroupStatus(code: Int32(ECGOTHER), systemError: .busy).meansVanished)
    }

    /// A missing controller is reported as such, naming what appwarden needs.
    @Test func unmountedControllerIsAMissingController() {
        let error = LibcgroupStatus(code: Int32(ECGROUPSUBSYSNOTMOUNTED), systemError: nil)
            .error(doing: "create", target: "the group \"appwarden/mail\" in the freezer hierarchy")
        #expect(error.code == .missingController)
        #expect(error.message.contains("mount cgroup2"))
    }
}
