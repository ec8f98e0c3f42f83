#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A fresh directory under /tmp for one test's database files, removed with what it holds by
/// `remove()`.
struct SQLiteTestDirectory {
    let path: String

    init() {
        var template = Array("/tmp/appwarden-sqlite-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed under /tmp")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path of `name` in the directory.
    func file(_ name: String = "test.sqlite") -> String {
        path + "/" + name
    }

    /// Makes the file `name` in the directory holding `bytes`; returns its path.
    func makeFile(_ name: String, bytes: [UInt8]) -> String {
        let path = file(name)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(descriptor >= 0, "cannot create \(path)")
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        return path
    }

    /// Whether `name` exists in the directory.
    func exists(_ name: String) -> Bool {
        access(file(name), F_OK) == 0
    }

    func remove() {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}
