import Foundation
import Testing
import WardenPolicy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A policy path that is not a readable, non-empty regular file is refused with a sentence
/// naming the real problem, never a guess.
@Suite struct PolicyFileReadingTests {
    /// The one sentence `PolicyLoader.load` refuses `path` with.
    static func refusal(_ path: String) -> String? {
        do {
            _ = try PolicyLoader.load(path: path)
            return nil
        } catch {
            return error.diagnostics.map(\.message).joined(separator: " | ")
        }
    }

    /// A temporary directory for one test, removed by the caller.
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "appwarden-policy-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `/dev/null` is a character device, not a policy file, and the sentence says so.
    @Test func devNullIsNamedACharacterDevice() {
        #expect(Self.refusal("/dev/null") == "the path is a character device (such as /dev/null), not a regular file.")
    }

    /// An empty file is refused as empty, with where a policy's apps go.
    @Test func anEmptyFileIsRefusedAsEmpty() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/empty.toml"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(
            Self.refusal(path)
                == "the file is empty; a policy declares each app in an [apps.NAME] table (see policies/README.md).")
    }

    /// A directory is named a directory.
    @Test func aDirectoryIsNamedADirectory() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(Self.refusal(directory) == "the path is a directory, not a file.")
    }

    /// A named pipe is refused at once (not read until a writer comes) as a pipe.
    @Test func aNamedPipeIsRefusedWithoutWaitingForAWriter() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/policy.fifo"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(Self.refusal(path) == "the path is a named pipe (FIFO), not a regular file.")
    }

    /// A path the system refuses to open is refused with the system's own reason and errno.
    @Test func anUnopenablePathCarriesTheSystemsReason() {
        let path = "/tmp/" + String(repeating: "x", count: 300) + ".toml"
        #expect(Self.refusal(path) == "the file cannot be read: File name too long (errno \(ENAMETOOLONG)).")
    }

    /// A missing file is still named missing.
    @Test func aMissingFileIsNamedMissing() {
        #expect(Self.refusal("/nonexistent-\(UUID().uuidString)/appwarden.toml") == "the file does not exist.")
    }
}
