import Foundation
import Testing
import WardenCgroup

#if canImport(Glibc)
    import Glibc
#endif

/// Which app group `/proc/PID/cgroup` places a process in.
struct ProcessMembershipTests {
    private let groups: [String: AppGroup] = [
        "mail": AppGroup(
            name: "mail", unifiedPath: "/sys/fs/cgroup/unified/appwarden/mail",
            memoryPath: "/sys/fs/cgroup/memory/appwarden/mail"),
        "maps": AppGroup(name: "maps", unifiedPath: "/sys/fs/cgroup/unified/appwarden/maps"),
    ]

    /// A process in an app's v1 memory group and cgroup2 group belongs to that app.
    @Test func processInAnAppsGroupsBelongsToThatApp() {
        let text = """
            12:memory:/appwarden/mail
            11:freezer:/
            1:name=systemd:/user.slice
            0::/appwarden/mail

            """
        #expect(ProcessMembership.group(inCgroupFile: text, among: groups) == "mail")
    }

    /// A process found in only one of the app's hierarchies still belongs to the app.
    @Test func oneHierarchyIsEnoughToBelongToAnApp() {
        #expect(ProcessMembership.group(inCgroupFile: "0::/appwarden/maps\n", among: groups) == "maps")
    }

    /// A group that only shares an app's name, in another place or nested below the app's own
    /// group, is not that app's; nor is the root or appwarden's own group.
    @Test func sameNameElsewhereOrNestedIsNotTheApp() {
        #expect(ProcessMembership.group(inCgroupFile: "0::/other/mail\n", among: groups) == nil)
        #expect(ProcessMembership.group(inCgroupFile: "0::/appwarden/mail/inner\n", among: groups) == nil)
        #expect(ProcessMembership.group(inCgroupFile: "0::/\n12:memory:/appwarden\n", among: groups) == nil)
        #expect(ProcessMembership.group(inCgroupFile: "", among: groups) == nil)
    }

    /// A live process is found in the group its own `/proc/PID/cgroup` names, and a pid that
    /// does not exist is in none.
    @Test func liveProcessIsFoundInItsOwnGroup() throws {
        let text = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").last)
        let path = String(line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)[2])
        let name = String(path.split(separator: "/").last ?? "")
        let own = AppGroup(name: name, unifiedPath: "/mount" + path)
        if !name.isEmpty {
            #expect(ProcessMembership.group(of: getpid(), among: [name: own]) == name)
        }
        #expect(ProcessMembership.group(of: -1, among: [name: own]) == nil)
    }
}

/// The supplementary groups of a `/proc/PID/status` text.
struct ProcessGroupsTests {
    /// The ids of the `Groups:` line, whatever spaces and tabs separate them; none when the line
    /// is empty or missing.
    @Test func groupsLineGivesTheSupplementaryGroups() {
        let status =
            "Name:\tsleep\nUid:\t65534\t65534\t65534\t65534\nGid:\t65534\t65534\t65534\t65534\n"
            + "FDSize:\t64\nGroups:\t4 24 100 \nNStgid:\t7\n"
        #expect(ProcessGroups.supplementary(inStatusFile: status) == [4, 24, 100])
        #expect(ProcessGroups.supplementary(inStatusFile: "Name:\tsleep\nGroups:\t\nNStgid:\t7\n").isEmpty)
        #expect(ProcessGroups.supplementary(inStatusFile: "Name:\tsleep\n").isEmpty)
    }

    /// This process's groups are read from its own status file.
    @Test func aLiveProcessGroupsAreRead() throws {
        let count = getgroups(0, nil)
        var expected = [gid_t](repeating: 0, count: Int(max(count, 0)))
        _ = getgroups(count, &expected)
        #expect(ProcessGroups.supplementary(of: getpid()).sorted() == expected.map { UInt32($0) }.sorted())
    }
}
