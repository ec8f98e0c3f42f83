import Testing
import WardenAPI

@testable import appwarden

@Suite struct EntryLineTests {
    static let policyText = (1...60).map { "# line \($0)" }.joined(separator: "\n") + "\n"

    static func policyEntry() -> JournalEntry {
        JournalEntry(
            id: 7, app: "appwarden", wallTimeMillis: 0, kind: "input", name: "policy",
            properties: ["path": "/etc/appwarden/policy.toml", "text": policyText])
    }

    /// A journaled policy is shown as its file, size, lines and SHA-256 prefix on one line, and
    /// `--full` shows the whole text.
    @Test func aJournaledPolicyShowsADigestUnlessTheWholeTextIsAskedFor() {
        let line = EntryLine.text(Self.policyEntry())
        #expect(!line.contains("\n"), "\(line)")
        #expect(line.contains("path=/etc/appwarden/policy.toml"))
        let size = Self.policyText.utf8.count
        let hash = PolicyDigest.sha256(Array(Self.policyText.utf8)).prefix(6)
            .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(line.contains("text=\(size) bytes, 60 lines, sha256 \(hash) (--full prints the text)"), "\(line)")
        #expect(EntryLine.text(Self.policyEntry(), full: true).contains("text=" + Self.policyText))
        // Other entries keep every property as it is.
        let other = JournalEntry(
            id: 8, app: "mail", wallTimeMillis: 0, kind: "input", name: "open", properties: ["text": "a\nb"])
        #expect(EntryLine.text(other).contains("text=a\nb"))
    }

    /// The digest is SHA-256 as `sha256sum` prints it (FIPS 180-4's examples, one of them longer
    /// than a block).
    @Test func theDigestIsSHA256() {
        func hex(_ text: String) -> String {
            PolicyDigest.sha256(Array(text.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(String(repeating: "a", count: 1000)).hasPrefix("41edece42d63"))
    }
}
