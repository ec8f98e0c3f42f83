import ArgumentParser
import Foundation
import WardenAPI
import WardenClient

/// `appwarden logs APP [--follow]`: the app's output, as its log relay wrote it.
struct LogsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs", abstract: "Print an app's output (standard output and error, each line timestamped).",
        discussion: """
            Reads APP.log in the daemon's log directory (the daemon names it); rotated files \
            (APP.log.1 …) hold older output. With --follow it keeps printing what the app writes, \
            across rotations, until interrupted.
            """)
    @OptionGroup var client: ClientOptions
    @Argument(help: "The app.") var app: String
    @Flag(name: .shortAndLong, help: "Keep printing new output until interrupted.") var follow = false

    func run() async throws {
        // The daemon refuses an app its policy does not declare, as every verb does.
        _ = try await client.call(ControlAPI.app, [app])
        let health = try await client.call(ControlAPI.health)
        guard let directory = health.logDirectory else {
            throw ClientExit.refused(reason: "notFound", "The daemon at \(client.socketPath) keeps no app logs.")
        }
        let path = directory + "/" + app + ".log"
        var reader = LogFileReader(path: path)
        if !follow {
            guard reader.exists else {
                throw ClientExit.refused(
                    reason: "notFound", "\(app) has no log at \(path): it has not been launched since the log was kept."
                )
            }
            reader.copyNewBytes()
            return
        }
        while true {
            reader.copyNewBytes()
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}

/// Copies what a log file gained since the last read to standard output; a file that was
/// rotated (another inode, or shorter than what was read) is read again from its start.
struct LogFileReader {
    let path: String
    private var handle: FileHandle?
    private var inode: Int?
    private var offset: UInt64 = 0

    init(path: String) {
        self.path = path
    }

    /// Whether the file exists now.
    var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// Writes every byte added since the last call, opening the file again after a rotation.
    mutating func copyNewBytes() {
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path) {
            let number = (attributes[.systemFileNumber] as? NSNumber)?.intValue
            let size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
            if handle == nil || number != inode || size < offset {
                // The old file may still hold lines written before the rotation.
                drain()
                try? handle?.close()
                handle = FileHandle(forReadingAtPath: path)
                inode = number
                offset = 0
            }
        }
        drain()
    }

    private mutating func drain() {
        guard let handle else { return }
        while true {
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: 65536),
                !data.isEmpty
            else { return }
            offset += UInt64(data.count)
            FileHandle.standardOutput.write(data)
        }
    }
}
