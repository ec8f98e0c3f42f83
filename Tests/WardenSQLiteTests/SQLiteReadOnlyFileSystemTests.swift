import Testing
import WardenSQLite

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.enabled(if: getuid() == 0, "mounts a file system, which needs root"))
struct SQLiteReadOnlyFileSystemTests {
    /// A connection meant to write to a file it can only read (on a file system mounted
    /// read-only) fails at open with SQLITE_READONLY naming the file, rather than at its first
    /// write; a read-only connection reads the same file.
    @Test func aWriterOnAReadOnlyFileSystemFailsAtOpen() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let mountPoint = directory.path + "/mount"
        mkdir(mountPoint, 0o700)
        defer { rmdir(mountPoint) }
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=1m") == 0 else {
            Issue.record("Could not mount a tmpfs on \(mountPoint): errno \(errno)")
            return
        }
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let path = mountPoint + "/test.sqlite"
        let writer = try SQLiteConnection(path: path)
        try writer.execute(script: "CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        writer.close()
        guard mount("tmpfs", mountPoint, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
            Issue.record("Could not remount \(mountPoint) read-only: errno \(errno)")
            return
        }
        let error = #expect(throws: SQLiteError.self) { _ = try SQLiteConnection(path: path) }
        #expect(error?.codeName == "SQLITE_READONLY")
        #expect(error?.path == path)
        let reader = try SQLiteConnection(path: path, configuration: SQLiteConfiguration().reader)
        #expect(try reader.row("SELECT x FROM t") { $0.int64(at: 0) } == 1)
    }
}
