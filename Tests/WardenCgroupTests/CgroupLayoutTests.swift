import Testing

@testable import WardenCgroup

/// Layout detection from fixture copies of `/proc/self/mountinfo` and `/proc/self/cgroup`.
struct CgroupLayoutTests {
    private func layout(_ name: String) throws -> CgroupLayout {
        try CgroupLayout.parse(
            mountinfo: CgroupTestSupport.fixture("layouts/\(name)/mountinfo"),
            cgroup: CgroupTestSupport.fixture("layouts/\(name)/cgroup"),
            unifiedControllers: (try? CgroupTestSupport.fixture("layouts/\(name)/cgroup.controllers")) ?? "")
    }

    /// A pure v2 host with the memory controller takes memory, freeze and kill from cgroup2.
    @Test func pureV2HostUsesCgroup2ForEverything() throws {
        let layout = try layout("pure-v2")
        #expect(layout.kind == .unified)
        #expect(layout.unifiedMountPoint == "/sys/fs/cgroup")
        #expect(layout.unifiedControllers.contains("memory"))
        #expect(layout.memorySource == .unified)
        #expect(layout.freezeSource == .unified)
        #expect(layout.ownUnifiedPath == "/system.slice/appwarden.service")
        #expect(
            layout.unifiedDirectory(path: "/system.slice/appwarden.service")
                == "/sys/fs/cgroup/system.slice/appwarden.service")
    }

    /// A hybrid host like this build machine takes memory from v1 and freezing from its cgroup2 mount.
    @Test func hybridHostTakesMemoryFromV1AndFreezeFromCgroup2() throws {
        let layout = try layout("hybrid")
        #expect(layout.kind == .hybrid)
        #expect(layout.unifiedMountPoint == "/sys/fs/cgroup/unified")
        #expect(layout.v1Hierarchies["memory"]?.mountPoint == "/sys/fs/cgroup/memory")
        #expect(layout.v1Hierarchies["freezer"]?.mountPoint == "/sys/fs/cgroup/freezer")
        #expect(layout.v1Hierarchies["cpu"]?.controllers == ["cpu"])
        #expect(layout.v1Hierarchies["name=systemd"] != nil)
        #expect(layout.memorySource == .v1)
        #expect(layout.freezeSource == .unified)
        #expect(layout.ownV1Paths["memory"] == "/process_api/d16162799fa6a40be779267fb00b3793")
        #expect(layout.ownUnifiedPath == "/")
    }

    /// A v1-only host freezes through the v1 freezer.
    @Test func v1OnlyHostFreezesThroughTheV1Freezer() throws {
        let layout = try layout("v1-only")
        #expect(layout.kind == .legacy)
        #expect(layout.unifiedMountPoint == nil)
        #expect(layout.memorySource == .v1)
        #expect(layout.freezeSource == .v1)
        #expect(layout.ownUnifiedPath == nil)
    }

    /// A host without any cgroup mount has no source, and choosing a driver fails with advice.
    @Test func hostWithoutCgroupsIsRefusedWithAdvice() throws {
        let layout = try layout("none")
        #expect(layout.kind == .none)
        #expect(layout.memorySource == .procfs)
        #expect(layout.freezeSource == .unavailable)
        let error = #expect(throws: CgroupError.self) { try CgroupDrivers.make(layout: layout) }
        #expect(error?.code == .notMounted)
        #expect(error?.message.contains("Delegate=yes") == true)
        #expect(error?.message.contains("/proc/self/mountinfo") == true)
    }

    /// Inside a container the mount shows a subtree: paths are mapped below its root, escapes decoded.
    @Test func containerMountRootIsStrippedFromOwnPaths() throws {
        let layout = try layout("container-v2")
        #expect(layout.unifiedMountRoot == "/kubepods/pod one/abc")
        #expect(layout.unifiedDirectory(path: "/kubepods/pod one/abc/app") == "/sys/fs/cgroup/app")
        #expect(layout.unifiedDirectory(path: "/elsewhere") == nil)
    }

    /// The driver chosen for each layout is the one that fits it.
    @Test func driverChoiceFollowsTheLayout() throws {
        let pure = try CgroupDrivers.make(
            layout: layout("pure-v2"), configuration: CgroupConfiguration(placement: .hierarchyRoot))
        #expect(pure is UnifiedDriver)
        #expect(pure.group(named: "mail").unifiedPath == "/sys/fs/cgroup/appwarden/mail")
        let hybrid = try CgroupDrivers.make(layout: layout("hybrid"))
        #expect(hybrid is HybridDriver)
        let legacy = try #require(try CgroupDrivers.make(layout: layout("v1-only")) as? HybridDriver)
        #expect(legacy.freezesThroughV1)
        #expect(legacy.group(named: "mail").freezerPath == "/sys/fs/cgroup/freezer/appwarden/mail")
    }

    /// Delegated placement puts the root under the daemon's own group, with a configurable name.
    @Test func delegatedPlacementNestsTheRootUnderTheDaemonsGroup() throws {
        let driver = try UnifiedDriver(
            layout: layout("pure-v2"), configuration: CgroupConfiguration(rootName: "apps", placement: .delegated))
        #expect(driver.rootDirectory == "/sys/fs/cgroup/system.slice/appwarden.service/apps")
        #expect(driver.group(named: "maps").unifiedPath == "/sys/fs/cgroup/system.slice/appwarden.service/apps/maps")
    }

    /// A service started by systemd before 254 (no `DelegateSubgroup=`) keeps its apps in a scope
    /// of their own beside it, so its own group never has controllers enabled and a restart can
    /// place the new daemon there again.
    @Test func automaticPlacementUnderSystemdPutsAppsInAScopeBesideTheService() throws {
        let resolved = try UnifiedDriver.resolvePlacement(
            configuration: CgroupConfiguration(), mountPoint: "/sys/fs/cgroup",
            ownDirectory: "/sys/fs/cgroup/system.slice/appwarden.service", underSystemd: true, memoryOnUnified: true)
        #expect(resolved.placement == .systemdScope)
        #expect(resolved.baseDirectory == "/sys/fs/cgroup/system.slice/appwarden-apps.scope")
        #expect(resolved.leafName == "keeper")
    }

    /// A service that systemd started in its `daemon` leaf (`DelegateSubgroup=daemon`) keeps the
    /// apps beside that leaf and moves nothing, so a restart lands in the leaf again.
    @Test func automaticPlacementInTheDaemonLeafUsesTheServiceGroupWithoutMoving() throws {
        let resolved = try UnifiedDriver.resolvePlacement(
            configuration: CgroupConfiguration(), mountPoint: "/sys/fs/cgroup",
            ownDirectory: "/sys/fs/cgroup/system.slice/appwarden.service/daemon", underSystemd: true,
            memoryOnUnified: true)
        #expect(
            resolved == .init(placement: .delegated, baseDirectory: "/sys/fs/cgroup/system.slice/appwarden.service"))
    }

    /// Without systemd the apps go under the hierarchy's root; where memory is not a cgroup2
    /// controller (hybrid hosts) a service keeps the delegated leaf layout.
    @Test func automaticPlacementOutsideSystemdOrOnHybridHostsKeepsTheOlderLayouts() throws {
        let outside = try UnifiedDriver.resolvePlacement(
            configuration: CgroupConfiguration(), mountPoint: "/sys/fs/cgroup",
            ownDirectory: "/sys/fs/cgroup/user.slice/session-1.scope", underSystemd: false, memoryOnUnified: true)
        #expect(outside == .init(placement: .hierarchyRoot, baseDirectory: "/sys/fs/cgroup"))
        let hybrid = try UnifiedDriver.resolvePlacement(
            configuration: CgroupConfiguration(), mountPoint: "/sys/fs/cgroup/unified",
            ownDirectory: "/sys/fs/cgroup/unified/system.slice/appwarden.service", underSystemd: true,
            memoryOnUnified: false)
        #expect(
            hybrid
                == .init(
                    placement: .delegated, baseDirectory: "/sys/fs/cgroup/unified/system.slice/appwarden.service",
                    leafName: "daemon"))
    }

    /// A broken membership line is refused with the file and line named.
    @Test func malformedMembershipLineIsNamed() {
        let error = #expect(throws: CgroupError.self) {
            try CgroupLayout.parse(mountinfo: "", cgroup: "0::/\nnot a cgroup line\n")
        }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains("/proc/self/cgroup") == true)
        #expect(error?.message.contains("line 2") == true)
    }

    /// The running host's layout can be read, and this process appears in it.
    @Test func runningHostLayoutIsReadable() throws {
        let layout = try CgroupLayout.read()
        #expect(layout.kind != .none || layout.ownV1Paths.isEmpty)
        if layout.unifiedMountPoint != nil { #expect(layout.ownUnifiedPath != nil) }
    }
}
