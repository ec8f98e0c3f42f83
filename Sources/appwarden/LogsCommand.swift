import ArgumentParser
import FoundationEssentials
import Glibc
import WardenAPI
import WardenClient
import WardenPlatform

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
    private var descriptor: Int32 = -1
    private var inode: ino_t?
    private var offset: off_t = 0

    init(path: String) {
        self.path = path
    }

    /// Whether the file exists now.
    var exists: Bool { access(path, F_OK) == 0 }

    /// Writes every byte added since the last call, opening the file again after a rotation.
    mutating func copyNewBytes() {
        var status = stat()
        if stat(path, &status) == 0 {
            if descriptor < 0 || status.st_ino != inode || status.st_size < offset {
                // The old file may still hold lines written before the rotation.
                drain()
                if descriptor >= 0 { close(descriptor) }
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                inode = status.st_ino
                offset = 0
            }
        }
        drain()
    }

    private mutating func drain() {
        guard descriptor >= 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            offset += off_t(count)
            StandardStream.output.write(Array(chunk[..<count]))
        }
    }
}
