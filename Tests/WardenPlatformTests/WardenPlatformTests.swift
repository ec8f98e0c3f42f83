import Glibc
import Synchronization
import Testing
import WardenPlatform

@Suite struct PathTextTests {
    @Test func theFolderIsWhatDirnameSays() {
        #expect(PathText.directory(of: "/a/b/day.toml") == "/a/b")
        #expect(PathText.directory(of: "/a/b/") == "/a")
        #expect(PathText.directory(of: "/day.toml") == "/")
        #expect(PathText.directory(of: "day.toml") == "")
        #expect(PathText.directory(of: "scenarios/day.toml") == "scenarios")
    }

    @Test func theLastPartAndItsExtension() {
        #expect(PathText.lastComponent(of: "/a/b/day.toml") == "day.toml")
        #expect(PathText.lastComponent(of: "/a/b/") == "b")
        #expect(PathText.lastComponent(of: "day") == "day")
        #expect(PathText.deletingExtension(of: "day.toml") == "day")
        #expect(PathText.deletingExtension(of: "day.2.toml") == "day.2")
        #expect(PathText.deletingExtension(of: ".hidden") == ".hidden")
        #expect(PathText.deletingExtension(of: "plain") == "plain")
    }

    @Test func joiningPutsOneSlashBetween() {
        #expect(PathText.joining("/a", "p.toml") == "/a/p.toml")
        #expect(PathText.joining("/", "p.toml") == "/p.toml")
        #expect(PathText.joining("", "p.toml") == "p.toml")
    }
}

@Suite struct FileTextTests {
    private func temporaryFolder() -> String {
        var template = Array("/tmp/appwarden-platform-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    @Test func aWriteReplacesTheFileWholeAndLeavesNoTemporaryFile() throws {
        let folder = temporaryFolder()
        defer { _ = rmdir(folder) }
        let path = folder + "/out.toml"
        defer { unlink(path) }
        try FileText.writeAtomically("first\n", to: path)
        try FileText.writeAtomically("second, longer\n", to: path)
        #expect(readText(path) == "second, longer\n")
        let entries = try #require(opendir(folder))
        defer { closedir(entries) }
        var names: [String] = []
        while let entry = readdir(entries) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        #expect(names == ["out.toml"])
    }

    @Test func aFolderThatDoesNotExistIsNamedBySystemReason() {
        #expect {
            try FileText.writeAtomically("x", to: "/nonexistent-appwarden-folder/out.toml")
        } throws: { error in
            (error as? FileText.WriteFailure)?.description == "No such file or directory"
        }
    }
}

@Suite struct DetachedThreadTests {
    @Test func workRunsOnAThreadOfItsOwnWithItsName() async throws {
        let caller = pthread_self()
        let seen: (sameThread: Bool, name: String) = await withCheckedContinuation { continuation in
            do {
                try DetachedThread.start(name: "appwarden-test-thread-long") {
                    let text = readText("/proc/thread-self/comm").split(separator: "\n").first.map(String.init) ?? ""
                    continuation.resume(returning: (pthread_equal(pthread_self(), caller) != 0, text))
                }
            } catch {
                continuation.resume(returning: (true, "\(error)"))
            }
        }
        #expect(!seen.sameThread)
        #expect(seen.name == "appwarden-test-")
    }
}

/// The whole of a small file as text; empty when it cannot be read.
private func readText(_ path: String) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
}
