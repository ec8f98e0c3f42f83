import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// Room before a launch in the daemon, in virtual time: the size learned from an app's launch,
/// a measurement made for the open, and the kill carried out before the spawn.
@Suite struct DaemonLaunchRoomTests {
    static let mib: Int64 = 1 << 20

    /// A device of 1GiB where camera's first launch took 400MiB and ended, and mail (300MiB) and
    /// chat (100MiB) were opened and are suspended, holding their memory in RAM.
    static func deviceWithMailAndChatSuspended() async throws -> WardenTestBed {
        let policy = try PolicyLoader.parse(
            """
            [memory]
            fair_share = "none"
            [apps.camera]
            command = "/bin/camera"
            [apps.mail]
            command = "/bin/mail"
            [apps.chat]
            command = "/bin/chat"
            """, file: "room.toml")
        let bed = await WardenTestBed.start(policy: policy, sampleInterval: .seconds(1))
        do {
            bed.driver.setDeviceMemory(1024 * Self.mib)
            bed.driver.setFootprint(400 * Self.mib, of: "camera")
            bed.driver.setFootprint(300 * Self.mib, of: "mail")
            bed.driver.setFootprint(100 * Self.mib, of: "chat")
            _ = try await bed.daemon.perform(.open(app: "camera"))
            await bed.advance(by: .seconds(10))
            _ = try await bed.daemon.perform(.forceQuit(app: "camera"))
            await bed.settle()
            _ = try await bed.daemon.perform(.open(app: "mail"))
            _ = try await bed.daemon.perform(.open(app: "chat"))
            _ = try await bed.daemon.perform(.home)
            await bed.advance(by: .seconds(10))
        } catch {
            await bed.stop()
            bed.removeStateDirectory()
            throw error
        }
        return bed
    }

    /// camera took 400MiB in its first launch. Memory then falls by 200MiB without crossing a
    /// threshold (no signal, no measurement on its own): the open of camera measures first,
    /// finds 424MiB available, 270.4MiB above warning_enter (153.6MiB), and kills the largest
    /// suspended app, mail, before camera's process is launched; explain says so.
    @Test func anOpenMeasuresAndKillsBeforeTheSpawn() async throws {
        let bed = try await Self.deviceWithMailAndChatSuspended()
        defer { bed.removeStateDirectory() }
        #expect(await bed.control.app(named: "mail")?.state == .suspended)
        #expect(try await bed.daemon.terminationReasons(of: "mail") == [])

        bed.driver.setDeviceMemory(1024 * Self.mib, reserved: 200 * Self.mib, signalling: false)
        let launchesBefore = bed.launcher.launches.count
        _ = try await bed.daemon.perform(.open(app: "camera"))
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "mail") == ["memoryPressure"])
        #expect(try await bed.daemon.terminationReasons(of: "chat") == [])
        #expect(await bed.control.app(named: "camera")?.state == .active)
        // The kill of mail's group comes before the group of camera's second process.
        let calls = bed.driver.calls
        let kill = try #require(calls.firstIndex(of: .kill("mail")))
        let create = try #require(calls.lastIndex(of: .create("camera")))
        #expect(kill < create)
        #expect(bed.launcher.launches.count == launchesBefore + 1)
        let sentences = try await bed.control.explain(app: "camera").sentences
        #expect(sentences.contains { $0.contains("Made room for camera: 400MiB expected") && $0.contains("\"mail\"") })
        await bed.stop()
    }

    /// The same device, with 400MiB of swap on a drive that came after mail and chat were
    /// suspended (so they still hold their memory in RAM): 270.4MiB above warning_enter in RAM is
    /// too little for camera, but with swap it fits. The open compresses mail, the largest
    /// suspended app, through the driver, and kills nobody; explain says so on both.
    @Test func anOpenThatSwapCanHoldCompressesInsteadOfKilling() async throws {
        let bed = try await Self.deviceWithMailAndChatSuspended()
        defer { bed.removeStateDirectory() }
        #expect(await bed.control.app(named: "mail")?.state == .suspended)
        #expect(!bed.driver.calls.contains(.compress("mail")))

        bed.driver.setDeviceSwap(400 * Self.mib)
        await bed.settle()
        bed.driver.setDeviceMemory(1024 * Self.mib, reserved: 200 * Self.mib, signalling: false)
        _ = try await bed.daemon.perform(.open(app: "camera"))
        await bed.settle()
        #expect(bed.driver.calls.contains(.compress("mail")))
        #expect(!bed.driver.calls.contains(.compress("chat")))
        #expect(try await bed.daemon.terminationReasons(of: "mail") == [])
        #expect(try await bed.daemon.terminationReasons(of: "chat") == [])
        #expect(await bed.control.app(named: "camera")?.state == .active)
        #expect(await bed.control.app(named: "mail")?.swappedBytes == 300 * Self.mib)
        let sentences = try await bed.control.explain(app: "camera").sentences
        #expect(
            sentences.contains {
                $0.contains("Made room for camera: 400MiB expected")
                    && $0.contains("compressed \"mail\" (300MiB in RAM)")
                    && !$0.contains("killed")
            })
        let mail = try await bed.control.explain(app: "mail").sentences
        #expect(mail.contains { $0.contains("Compressed to make room for a launch: 300MiB of its memory in swap.") })
        await bed.stop()
    }
}
