import Foundation
import Logging
import Synchronization
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// `explain` answers the question with figures: a memory kill with the other candidates, an
/// app that did not run with what keeps it and when it runs next; and the journal records what
/// explain needs about the device.
@Suite struct DaemonExplainTests {
    static let mebibyte: Int64 = 1 << 20

    /// After a real memory kill, explain gives the available memory, the threshold, the band,
    /// and every other candidate with why the killer did not take it.
    @Test func explainAfterAMemoryKillListsTheOtherCandidates() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(
            """
            [memory]
            kill_foreground = false
            [apps.big]
            command = "/bin/big"
            [apps.small]
            command = "/bin/small"
            [apps.guard]
            command = "/bin/guard"
            protected = true
            [apps.viewer]
            command = "/bin/viewer"
            """)
        defer { bed.removeStateDirectory() }
        for (app, size) in [("big", 400), ("small", 100), ("guard", 350), ("viewer", 300)] {
            _ = try await bed.daemon.perform(.open(app: app))
            await bed.settle()
            _ = try await bed.daemon.perform(.footprint(app: app, bytes: Int64(size) * Self.mebibyte))
        }
        let total = 1024 * Self.mebibyte
        _ = try await bed.daemon.perform(.memorySample(available: 10 * Self.mebibyte, total: total))
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "big") == ["memoryPressure"])
        let explanation = try await bed.control.explain(app: "big")
        let text = explanation.sentences.joined(separator: "\n")
        #expect(
            text.contains(
                "Killed for memory at level critical: 10MiB available of 1GiB; critical below 51.2MiB (ends at 102.4MiB)."
            ))
        #expect(text.contains("It was in the idle-background band and gave back 400MiB"))
        #expect(
            text.contains(
                "Not chosen: small (idle-background, 100MiB): its kill gives back less (100MiB against 400MiB) in the same band."
            ))
        #expect(
            text.contains(
                "Not chosen: viewer (foreground, 300MiB): in the foreground, killed only with kill_foreground = true."
            ))
        #expect(text.contains("Not chosen: guard (idle-background, 350MiB): protected by the policy, never killed."))
        #expect(explanation.sentences.contains { $0.hasPrefix("── launched at ") })
        let device = bed.journal.entries(JournalQuery(app: JournalEntry.systemApp))
        let settings = MemorySettings()
        let figures = MemoryFigures(
            availableBytes: 10 * Self.mebibyte, totalBytes: total,
            warningEnterBytes: settings.warningEnter.bytes(ofTotal: total),
            warningExitBytes: settings.warningExit.bytes(ofTotal: total),
            criticalEnterBytes: settings.criticalEnter.bytes(ofTotal: total),
            criticalExitBytes: settings.criticalExit.bytes(ofTotal: total))
        #expect(
            device.contains { $0.event == .system(.pressureChanged(from: .normal, to: .critical, figures: figures)) })
        await bed.stop()
    }

    /// After a kill whose room a foreground app took, the next kill takes that app, and explain
    /// says how much it grew into the room and which kill made it.
    @Test func explainAfterAKillOfTheAppThatTookTheRoomSaysSo() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(
            """
            [apps.first]
            command = "/bin/first"
            [apps.second]
            command = "/bin/second"
            [apps.front]
            command = "/bin/front"
            """)
        defer { bed.removeStateDirectory() }
        for (app, size) in [("first", 200), ("second", 200), ("front", 100)] {
            _ = try await bed.daemon.perform(.open(app: app))
            await bed.settle()
            _ = try await bed.daemon.perform(.footprint(app: app, bytes: Int64(size) * Self.mebibyte))
        }
        let total = 1024 * Self.mebibyte
        _ = try await bed.daemon.perform(.memorySample(available: 10 * Self.mebibyte, total: total))
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "first") == ["memoryPressure"])
        _ = try await bed.daemon.perform(.footprint(app: "front", bytes: 280 * Self.mebibyte))
        _ = try await bed.daemon.perform(.memorySample(available: 10 * Self.mebibyte, total: total))
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "front") == ["memoryPressure"])
        #expect(try await bed.daemon.terminationReasons(of: "second") == [])
        let text = try await bed.control.explain(app: "front").sentences.joined(separator: "\n")
        #expect(
            text.contains(
                "It grew by 180MiB into the 200MiB the kill of \"first\" gave back, and gave back 280MiB; the killer takes an app that takes the room of its last kill first."
            ), "\(text)")
        #expect(
            text.contains(
                "): it did not grow by half of the 200MiB the kill of \"first\" gave back; an app that did goes first."
            ), "\(text)")
        await bed.stop()
    }

    /// The thresholds read the same in the log, the journal and explain, as in `top`: each level
    /// below its enter threshold, ending at its exit threshold, also while a level holds (a change
    /// from warning to critical gives warning_enter as the warning threshold, not warning_exit).
    @Test func theThresholdsReadTheSameInTheLogTheJournalAndExplain() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "appwarden") { label in
            WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let policy = try PolicyLoader.parse(
            """
            [memory]
            warning_enter = "256MiB"
            warning_exit = "320MiB"
            critical_enter = "128MiB"
            critical_exit = "192MiB"
            [apps.mail]
            command = "/bin/mail"
            [apps.maps]
            command = "/bin/maps"
            """, file: "policy.toml")
        let bed = await WardenTestBed.start(policy: policy, logger: logger)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mail"))
        _ = try await bed.daemon.perform(.open(app: "maps"))
        _ = try await bed.daemon.perform(.footprint(app: "mail", bytes: 96 * Self.mebibyte))
        let total = 1024 * Self.mebibyte
        _ = try await bed.daemon.perform(.memorySample(available: 200 * Self.mebibyte, total: total))
        _ = try await bed.daemon.perform(.memorySample(available: 100 * Self.mebibyte, total: total))
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "mail") == ["memoryPressure"])

        let thresholds = "warning below 256MiB (ends at 320MiB), critical below 128MiB (ends at 192MiB)"
        let log = lines.withLock { $0 }
        #expect(
            log.contains { $0.contains("Memory pressure normal → warning: 200MiB available of 1GiB; \(thresholds).") })
        #expect(
            log.contains {
                $0.contains("Memory pressure warning → critical: 100MiB available of 1GiB; \(thresholds).")
            },
            "\(log)")
        #expect(
            log.contains {
                $0.contains("Killed app \"mail\" for memory pressure: idle-background band, gives back 96MiB; ")
                    && $0.contains("100MiB available of 1GiB, critical below 128MiB (ends at 192MiB)")
            })
        let changes = bed.journal.entries(JournalQuery(app: JournalEntry.systemApp)).filter {
            $0.name == "pressureChanged"
        }
        #expect(changes.count >= 2)
        for change in changes.prefix(2) {
            #expect(change.properties["warningEnterBytes"] == String(256 * Self.mebibyte))
            #expect(change.properties["warningExitBytes"] == String(320 * Self.mebibyte))
            #expect(change.properties["criticalEnterBytes"] == String(128 * Self.mebibyte))
            #expect(change.properties["criticalExitBytes"] == String(192 * Self.mebibyte))
        }
        let explanation = try await bed.control.explain(app: "mail")
        #expect(
            explanation.sentences.contains(
                "Killed for memory at level critical: 100MiB available of 1GiB; critical below 128MiB (ends at 192MiB)."
            ),
            "\(explanation.sentences)")
        await bed.stop()
    }

    /// For apps that did not run, explain says what keeps each from running and when it runs next.
    @Test func explainForAnAppThatDidNotRunGivesTheReasonAndTheNextOpportunity() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(
            """
            [apps.plain]
            command = "/bin/plain"
            [apps.switchedOff]
            command = "/bin/off"
            background_modes = ["fetch"]
            fetch_interval = "15m"
            background_refresh = false
            [apps.reader]
            command = "/bin/reader"
            background_modes = ["fetch", "remote-notification"]
            fetch_interval = "15m"
            [apps.quitter]
            command = "/bin/quitter"
            background_modes = ["fetch", "remote-notification"]
            fetch_interval = "15m"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "quitter"))
        await bed.settle()
        _ = try await bed.daemon.perform(.forceQuit(app: "quitter"))
        await bed.settle()
        let plain = try await bed.control.explain(app: "plain").sentences
        #expect(
            plain.contains("It gets no background fetches: its policy does not list the \"fetch\" background mode."))
        #expect(
            plain.contains(
                "Silent pushes do not wake it: its policy does not list the \"remote-notification\" background mode."))
        let off = try await bed.control.explain(app: "switchedOff").sentences
        #expect(
            off.contains(
                "It gets no background fetches: background refresh is off for it (background_refresh = false)."))
        let reader = try await bed.control.explain(app: "reader").sentences
        #expect(reader.contains("Next background fetch in 15m, after its interval of 15m."))
        let quitter = try await bed.control.explain(app: "quitter").sentences
        #expect(
            quitter.contains(
                "Fetch, push and accessory wakes leave it alone until the user opens it: the app was force-quit."))
        await bed.stop()
    }

    /// After a fetch that brought nothing, explain gives the stretched interval and its factor.
    @Test func explainGivesTheAdaptiveFactorOfTheFetchInterval() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(
            """
            [apps.reader]
            command = "/bin/reader"
            background_modes = ["fetch"]
            fetch_interval = "minimum"
            [apps.reader.fetch]
            minimum_interval = "10m"
            """)
        defer { bed.removeStateDirectory() }
        await bed.advance(to: .seconds(600))
        #expect(
            bed.journal.entries(JournalQuery(app: "reader")).contains {
                $0.event == .message(.fetchStart(window: .seconds(30)))
            })
        _ = try await bed.daemon.perform(.completeFetch(app: "reader", result: .noData))
        await bed.settle()
        let sentences = try await bed.control.explain(app: "reader").sentences
        #expect(
            sentences.contains(
                "Next background fetch in 15m, after its interval of 10m (minimum) stretched ×1.5 by the adaptive scheduler to 15m."
            ))
        await bed.stop()
    }

    /// A push held by the throttle is explained with the time of the next slot, a push window
    /// left unanswered with the block that follows, and an open task with the budget it has left.
    @Test func explainGivesTheNextPushSlotAndOpenTasks() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(
            """
            [push]
            max_per_hour = 1
            [apps.chat]
            command = "/bin/chat"
            background_modes = ["remote-notification"]
            [apps.dropper]
            command = "/bin/dropper"
            background_modes = ["remote-notification"]
            [apps.worker]
            command = "/bin/worker"
            """)
        defer { bed.removeStateDirectory() }
        let wake = #"{"aps":{"content-available":1}}"#
        _ = try await bed.daemon.perform(.push(target: .app("chat"), payload: wake, id: "first"))
        _ = try await bed.daemon.perform(.push(target: .app("dropper"), payload: wake, id: "lost"))
        await bed.settle()
        _ = try await bed.daemon.perform(.completePush(app: "chat", result: .newData))
        await bed.advance(to: .seconds(600))
        let reply = try await bed.daemon.perform(.push(target: .app("chat"), payload: wake, id: "second"))
        #expect(reply == .push(.coalesced))
        let chat = try await bed.control.explain(app: "chat").sentences
        #expect(
            chat.contains(
                #"A push ("second") is held by the push throttle (1 wakes an hour); its next slot is in 50m."#))
        let dropper = try await bed.control.explain(app: "dropper").sentences
        #expect(
            dropper.contains(
                "Fetch, push and accessory wakes leave it alone until the user opens it: the system terminated it (pushTimeout); [background] wake_after_system_termination = true would wake it."
            ))
        _ = try await bed.daemon.perform(.open(app: "worker"))
        await bed.settle()
        _ = try await bed.daemon.perform(.beginTask(app: "worker", name: "upload"))
        _ = try await bed.daemon.perform(.home)
        await bed.settle()
        let worker = try await bed.control.explain(app: "worker").sentences
        #expect(
            worker.contains {
                $0.hasPrefix(#"Background task 1 ("upload") is open, "#) && $0.hasSuffix(" of budget left.")
            })
        await bed.stop()
    }

    /// Lock and unlock, and the daemon's start and stop, are journaled for the device.
    @Test func screenAndDaemonEventsAreJournaled() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(
            """
            [apps.mail]
            command = "/bin/mail"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mail"))
        _ = try await bed.daemon.perform(.lock)
        _ = try await bed.daemon.perform(.unlock)
        await bed.settle()
        await bed.stop()
        // The device's own records; the inputs journaled beside them are for `export`.
        let device = bed.journal.entries(JournalQuery(app: JournalEntry.systemApp)).map(\.event)
            .filter { $0.kind == .system }
        #expect(
            device == [
                .system(.daemonStarted(version: WardenVersion.current, readopted: [])), .system(.screenLocked),
                .system(.screenUnlocked), .system(.daemonStopped(leftRunning: ["mail"])),
            ])
    }

    /// A policy reload is journaled with the apps added, removed and changed.
    @Test func policyReloadIsJournaledWithItsDiff() throws {
        let before = Policy(apps: [AppPolicy(name: "kept"), AppPolicy(name: "gone"), AppPolicy(name: "edited")])
        var core = Lifecycle(policy: before)
        _ = try core.handle(.open(app: "kept"), at: .zero)
        let after = Policy(apps: [
            AppPolicy(name: "kept"), AppPolicy(name: "edited", isProtected: true), AppPolicy(name: "new"),
        ])
        let actions = try core.handle(.policyChanged(after), at: .zero + .seconds(1))
        let reloads = actions.compactMap { action -> SystemEvent? in
            guard case .journal(let record) = action, case .system(let event) = record.kind else { return nil }
            return event
        }
        #expect(reloads == [.policyReloaded(added: ["new"], removed: ["gone"], changed: ["edited"])])
    }
}
