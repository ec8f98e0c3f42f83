import Foundation
import Testing
import WardenPolicy

/// The TOML files in the repository read to the trees recorded in
/// `Tests/Fixtures/toml/trees.txt`: every key, its line, its kind and its value, in order.
@Suite struct ShippedTOMLTreeTests {
    /// One file's recorded tree: its path from the package root and its dump lines.
    struct Recorded {
        var path: String
        var lines: [String]
    }

    /// The files and trees recorded in the fixture, in its order.
    static func recorded() throws -> [Recorded] {
        let text = try String(
            contentsOfFile: PolicyFixtures.packageRoot + "/Tests/Fixtures/toml/trees.txt", encoding: .utf8)
        var files: [Recorded] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("== ") {
                files.append(Recorded(path: String(line.dropFirst(3)), lines: []))
            } else if !line.isEmpty, !files.isEmpty {
                files[files.count - 1].lines.append(String(line))
            }
        }
        return files
    }

    /// The fixture covers the shipped policies, the shipped scenario, every test scenario and
    /// `features.toml`, a file with every kind of TOML value and table.
    @Test func fixtureCoversTheShippedFiles() throws {
        let paths = Set(try Self.recorded().map(\.path))
        let scenarios = try FileManager.default.contentsOfDirectory(
            atPath: PolicyFixtures.packageRoot + "/Tests/Scenarios"
        ).filter { $0.hasSuffix(".toml") }
        #expect(scenarios.count >= 60)
        for name in scenarios {
            #expect(paths.contains("Tests/Scenarios/\(name)"), "\(name) is not recorded")
        }
        let others = [
            "policies/default.toml", "policies/demo.toml", "scenarios/demo.toml", "Tests/Fixtures/toml/features.toml",
        ]
        for path in others {
            #expect(paths.contains(path), "\(path) is not recorded")
        }
    }

    /// Each recorded file reads to the same tree, line for line.
    @Test func recordedFilesReadToTheRecordedTrees() throws {
        let files = try Self.recorded()
        #expect(files.count >= 70)
        for file in files {
            let text = try String(contentsOfFile: PolicyFixtures.packageRoot + "/" + file.path, encoding: .utf8)
            let document = try LocatedDocument(text: text, file: file.path)
            let lines = LocatedTreeDump.lines(of: document)
            #expect(!lines.isEmpty, "\(file.path) read to an empty tree")
            guard lines != file.lines else { continue }
            let shorter = min(lines.count, file.lines.count)
            let index = (0..<shorter).first { lines[$0] != file.lines[$0] } ?? shorter
            let read = index < lines.count ? lines[index] : "(the end)"
            let recorded = index < file.lines.count ? file.lines[index] : "(the end)"
            Issue.record("\(file.path), dump line \(index + 1): read \(read), recorded \(recorded)")
        }
    }
}
