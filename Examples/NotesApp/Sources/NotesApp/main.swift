// A notes app that syncs in the background: it begins a background task for its sync and ends it
// when the budget is about to run out, answers fetch and push windows, drops its cache on a memory
// warning, and prints each status change it hears of. Start it under appwarden (see README.md).
import Foundation
import Synchronization
import WardenClient
import WardenCore

/// Prints every status change of every app, as an SDK would that pauses its work in background.
final class StatusPrinter: AppStatusObserver, Sendable {
    func appStatusDidChange(app: String, to status: AppStatus) {
        say("status of \(app) is now \(status)")
    }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data("notes: \(line)\n".utf8))
}

let app = WardenApplication.shared
guard let name = app.appName else {
    FileHandle.standardError.write(
        Data("notes: start me under appwarden; APPWARDEN_SOCKET and APPWARDEN_APP are not set.\n".utf8))
    exit(2)
}
say("launched as \(name) (\(app.launchReason.rawValue))")

let cache = Mutex<[String]>(["draft 1", "draft 2"])
app.addObserver(StatusPrinter())
app.onMemoryWarning {
    let dropped = cache.withLock { cache in
        defer { cache.removeAll() }
        return cache.count
    }
    say("memory warning: dropped \(dropped) cached notes")
}
app.onFetch { completion in
    say("fetch window: checking for new notes")
    completion(.newData)
}
app.onPush { payload, completion in
    say("push: \(payload)")
    completion(.newData)
}

let events = Task { try await app.run() }
let sync = Mutex<BackgroundTaskIdentifier?>(nil)
let task = try await app.beginBackgroundTask(withName: "sync") {
    say("expiration warning: ending the sync")
    if let task = sync.withLock({ $0 }) {
        Task { try? await app.endBackgroundTask(task) }
    }
}
sync.withLock { $0 = task }
say("began background task \(task.rawValue) (sync)")
try await Task.sleep(for: .milliseconds(500))
try await app.endBackgroundTask(task)
say("ended background task \(task.rawValue); \(cache.withLock { $0.count }) notes cached")
try await events.value
