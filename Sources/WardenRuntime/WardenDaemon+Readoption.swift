import Foundation
import Logging
import WardenCgroup
import WardenCore

/// Saving the model after every event, and picking up the apps a previous daemon left running.
extension WardenDaemon {
    /// Saves the core's checkpoint and the running apps' processes and groups.
    func saveCheckpoint() {
        let now = now()
        let runningApps = running.map { app, entry in
            let group = groups[app]
            return WardenCheckpoint.RunningApp(
                app: app, launch: entry.launch, pid: entry.pid, unifiedPath: group?.unifiedPath,
                memoryPath: group?.memoryPath, freezerPath: group?.freezerPath, v1ProcsFiles: group?.v1ProcsFiles ?? [],
                startedWallMillis: entry.startedWallMillis)
        }
        let checkpoint = WardenCheckpoint(
            lifecycle: lifecycle.checkpoint(at: now), running: runningApps.sorted { $0.app < $1.app },
            deviceTokens: deviceTokens)
        saveRegistry(runningApps)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let json = String(decoding: try encoder.encode(checkpoint), as: UTF8.self)
            try journalStore.saveCheckpoint(json, wallTimeMillis: wallMillis(now))
        } catch {
            logger.error("Could not save the checkpoint: \(error)")
        }
    }

    /// Continues from the last checkpoint: apps whose groups still hold processes are adopted
    /// with their state and deadlines (a suspended app stays frozen); apps whose processes are
    /// gone are reported as exited; processes left in groups of apps the model does not run are
    /// killed, so nothing runs twice or unsupervised.
    func readopt() async {
        let saved: (json: String, wallTimeMillis: Int64)?
        do {
            saved = try journalStore.checkpoint()
        } catch {
            logger.error("Could not read the checkpoint; starting afresh: \(error)")
            saved = nil
        }
        var registered: [String] = []
        if let saved {
            do {
                let checkpoint = try JSONDecoder().decode(WardenCheckpoint.self, from: Data(saved.json.utf8))
                let now = now()
                let then = now - .milliseconds(WardenClock.wallMillisNow() - saved.wallTimeMillis)
                lifecycle = Lifecycle(policy: policy, checkpoint: checkpoint.lifecycle, at: then)
                deviceTokens = checkpoint.deviceTokens ?? [:]
                lifecycle.restoreDeviceTokens(deviceTokens)
                registered = checkpoint.running.map(\.app)
                await adopt(checkpoint.running)
            } catch {
                logger.error("Could not read the checkpoint; starting afresh: \(error)")
            }
        }
        await killStrays(registered: registered)
        resubmitPendingPushes()
        for (timer, deadline) in lifecycle.armedTimers() {
            arm(timer, deadline: deadline)
        }
    }

    private func adopt(_ registry: [WardenCheckpoint.RunningApp]) async {
        var adopted: [String] = []
        for (app, launch, state) in lifecycle.runningLaunches() {
            let entry = registry.first { $0.app == app }
            let group =
                entry.map {
                    AppGroup(
                        name: app, unifiedPath: $0.unifiedPath, memoryPath: $0.memoryPath, freezerPath: $0.freezerPath,
                        v1ProcsFiles: $0.v1ProcsFiles)
                } ?? driver?.group(named: app)
            var pids: [Int32] = []
            if let driver, let group {
                pids = (try? await driver.processes(in: group)) ?? []
            }
            guard !pids.isEmpty else {
                logger.info("App \"\(app)\" ended while appwarden was not running.")
                followUps.append(.processExited(app: app, launch: launch, end: .exited(code: 0)))
                continue
            }
            groups[app] = group
            let mainPID = entry.flatMap { pids.contains($0.pid) ? $0.pid : nil } ?? pids[0]
            running[app] = RunningProcess(
                launch: launch, pid: mainPID, isWatched: launcher.watch(pid: mainPID, app: app, launch: launch),
                startedWallMillis: entry?.startedWallMillis ?? WardenClock.wallMillisNow())
            if let group { memory.track(group) }
            if let driver, let group, !options.dryRun {
                let frozen = (try? await driver.isFrozen(group)) ?? false
                if state == .suspended && !frozen {
                    try? await driver.freeze(group)
                } else if state != .suspended && frozen {
                    try? await driver.thaw(group)
                }
            }
            adopted.append(app)
        }
        if !adopted.isEmpty {
            record(
                app: Lifecycle.systemJournalName, kind: "decision", name: "decision",
                properties: ["text": "Re-adopted after a restart: \(adopted.joined(separator: ", "))."])
        }
        // The exits found above go through the queue like any other event.
        let gone = followUps
        followUps.removeAll()
        for event in gone { submit(event) }
    }

    /// Kills processes found in the groups of apps that the model does not run: apps of the
    /// policy, and apps of the last checkpoint that the policy no longer declares.
    private func killStrays(registered: [String]) async {
        guard let driver else { return }
        var names = policy.apps.map(\.name)
        names += registered.filter { !names.contains($0) }
        for app in names where groups[app] == nil {
            let group = driver.group(named: app)
            guard let pids = try? await driver.processes(in: group), !pids.isEmpty else { continue }
            logger.warning("Killing processes \(pids) left in the group of app \"\(app)\", which is not running.")
            if !options.dryRun {
                try? await driver.kill(group)
                try? await driver.remove(group)
            }
        }
    }

    /// Brings the journal's registry of running apps up to date with what runs now.
    private func saveRegistry(_ apps: [WardenCheckpoint.RunningApp]) {
        var current: [String: RunningAppRecord] = [:]
        for app in apps {
            current[app.app] = RunningAppRecord(
                app: app.app, launch: app.launch, pid: app.pid, unifiedPath: app.unifiedPath,
                memoryPath: app.memoryPath, freezerPath: app.freezerPath,
                state: lifecycle.state(of: app.app)?.rawValue ?? AppState.notRunning.rawValue,
                startedWallMillis: app.startedWallMillis ?? 0)
        }
        do {
            for (name, record) in current where savedRegistry[name] != record {
                try journalStore.saveRunning(record)
            }
            for name in savedRegistry.keys where current[name] == nil {
                try journalStore.removeRunning(app: name)
            }
            savedRegistry = current
        } catch {
            logger.error("Could not save the registry of running apps: \(error)")
        }
    }

    /// Keeps the device token the core handed out (`register-push`), or the rotation a reset made.
    func noteDeviceToken(_ event: LifecycleEvent, reply: Reply?) {
        switch (event, reply) {
        case (.registerPush(let app), .deviceToken(let token)?):
            guard deviceTokens[app] != token else { return }
            deviceTokens[app] = token
        case (.reset(let app), _):
            let prefix = "tok-\(app)-"
            guard let token = deviceTokens[app], token.hasPrefix(prefix),
                let number = Int(token.dropFirst(prefix.count))
            else { return }
            deviceTokens[app] = prefix + String(number + 1)
        default:
            return
        }
        do {
            try journalStore.saveToken(app: app(of: event), token: deviceTokens[app(of: event)] ?? "")
        } catch {
            logger.error("Could not save a device token: \(error)")
        }
    }

    private func app(of event: LifecycleEvent) -> String {
        switch event {
        case .registerPush(let app), .reset(let app): app
        default: ""
        }
    }

    /// Keeps a push the core holds for a force-quit app's next launch, so a restart keeps it too.
    func notePendingPush(_ event: LifecycleEvent, reply: Reply?) {
        if case .reset(let app) = event {
            try? journalStore.deletePendingPushes(app: app)
            return
        }
        guard case .push(let target, let payload, let id) = event, case .push(.pendingLaunch)? = reply else { return }
        let app: String?
        switch target {
        case .app(let name): app = name
        case .token(let token): app = deviceTokens.first { $0.value == token }?.key
        }
        guard let app else { return }
        do {
            try journalStore.savePendingPush(app: app, payload: payload, id: id)
        } catch {
            logger.error("Could not keep a push for app \"\(app)\": \(error)")
        }
    }

    /// Hands the core again the pushes kept for launches before the restart (the core keeps
    /// them again, and the journal with it).
    private func resubmitPendingPushes() {
        let pending: [(app: String, payload: String, id: String?)]
        do {
            pending = try journalStore.pendingPushes()
        } catch {
            logger.error("Could not read the pending pushes: \(error)")
            return
        }
        for app in Set(pending.map(\.app)) {
            try? journalStore.deletePendingPushes(app: app)
        }
        for push in pending {
            submit(.push(target: .app(push.app), payload: push.payload, id: push.id))
        }
    }
}
