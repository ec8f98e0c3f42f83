// ballast: a small workload for tests and demos.
//
//   ballast --hold MIB [--touch-at-start] [--compressible PERCENT] [--grow MIB --every DURATION] [--open PATH]
//           [--lock PATH] [--fcntl-lock PATH] [--exit-after DURATION] [--crash-after DURATION]
//           [--ready] [--begin-task NAME [--begin-when-backgrounded]] [--on-expiration end|ignore]
//           [--fetch complete:RESULT:DELAY|never] [--push complete:RESULT:DELAY|never] [--register-push]
//
// It holds MIB mebibytes of anonymous memory and writes to every page of it, so all of it is
// resident and charged to its cgroup. Its pages are all but empty, so swap compressed in RAM (zram)
// takes next to nothing for them; with --compressible PERCENT each page is filled with
// pseudo-random bytes but for PERCENT of it, left zero, so that a compressor can shrink it to
// about (100 - PERCENT)% and no further (--compressible 50: half-compressible pages, as an app's
// heap often is). With --touch-at-start the memory is allocated and touched
// before anything else, right after exec. It prints "ballast: ready" on standard output once
// everything is set up, then runs until a timer ends it or it is killed.
//
// The app-call flags act through the control API when appwarden started ballast (APPWARDEN_SOCKET
// and APPWARDEN_APP set): --ready reports readiness after start; --begin-task begins a background
// task at start (or when the app goes to background, with --begin-when-backgrounded) and
// --on-expiration says whether it ends the task on the expiration warning or ignores it; --fetch and
// --push answer each window with RESULT (newData, noData, failed) after DELAY, or never;
// --register-push prints the device token. Each event is printed as a "ballast: ..." line. The
// event stream follows the daemon across restarts, so a warning or a window that a new daemon
// delivers (or that was journaled while none ran) is still answered.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes `message` to standard error and exits with status 2.
func failUsage(_ message: String) -> Never {
    let text = "ballast: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

/// Parses a duration such as "250ms", "30s", "2m" or "1h" into milliseconds.
func parseMilliseconds(_ text: String, flag: String) -> Int {
    let units: [(String, Int)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
    for (suffix, factor) in units where text.hasSuffix(suffix) {
        let number = text.dropLast(suffix.count)
        if let value = Double(number), value >= 0 { return Int(value * Double(factor)) }
    }
    failUsage("\(flag) needs a duration such as \"500ms\", \"30s\" or \"2m\", not \"\(text)\".")
}

/// Parses a non-negative number of mebibytes.
func parseMebibytes(_ text: String, flag: String) -> Int {
    guard let value = Int(text), value >= 0 else {
        failUsage("\(flag) needs a whole number of MiB such as \"20\", not \"\(text)\".")
    }
    return value
}

struct Options {
    var holdMiB = 0
    var touchAtStart = false
    var compressiblePercent = 100
    var growMiB = 0
    var growEveryMilliseconds: Int?
    var openPaths: [String] = []
    var flockPaths: [String] = []
    var fcntlLockPaths: [String] = []
    var exitAfterMilliseconds: Int?
    var crashAfterMilliseconds: Int?
    var appCalls = AppCallOptions()

    init(_ arguments: [String]) {
        var index = 0
        func value(_ flag: String) -> String {
            index += 1
            guard index < arguments.count else { failUsage("\(flag) needs a value.") }
            return arguments[index]
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--hold": holdMiB = parseMebibytes(value(flag), flag: flag)
            case "--touch-at-start": touchAtStart = true
            case "--compressible":
                let percent = parseMebibytes(value(flag), flag: flag)
                guard percent <= 100 else {
                    failUsage("--compressible needs a percentage from 0 to 100, not \(percent).")
                }
                compressiblePercent = percent
            case "--grow": growMiB = parseMebibytes(value(flag), flag: flag)
            case "--every": growEveryMilliseconds = max(1, parseMilliseconds(value(flag), flag: flag))
            case "--open": openPaths.append(value(flag))
            case "--lock": flockPaths.append(value(flag))
            case "--fcntl-lock": fcntlLockPaths.append(value(flag))
            case "--exit-after": exitAfterMilliseconds = parseMilliseconds(value(flag), flag: flag)
            case "--crash-after": crashAfterMilliseconds = parseMilliseconds(value(flag), flag: flag)
            case "--ready": appCalls.ready = true
            case "--begin-task": appCalls.taskName = value(flag)
            case "--begin-when-backgrounded": appCalls.taskStart = .whenBackgrounded
            case "--on-expiration":
                switch value(flag) {
                case "end": appCalls.endTaskOnExpiration = true
                case "ignore": appCalls.endTaskOnExpiration = false
                case let other: failUsage("--on-expiration needs \"end\" or \"ignore\", not \"\(other)\".")
                }
            case "--fetch": appCalls.fetch = AppCallOptions.windowAnswer(value(flag), flag: flag)
            case "--push": appCalls.push = AppCallOptions.windowAnswer(value(flag), flag: flag)
            case "--register-push": appCalls.registerPush = true
            default: failUsage("unknown option \"\(flag)\"; see the usage at the top of Sources/ballast/main.swift.")
            }
            index += 1
        }
        if growMiB > 0 && growEveryMilliseconds == nil { failUsage("--grow needs --every DURATION.") }
    }
}

/// Anonymous memory that is written page by page so that it is resident.
struct Ballast {
    private var regions: [(UnsafeMutableRawPointer, Int)] = []
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    private(set) var totalMiB = 0
    /// The bytes of each page filled with pseudo-random data when a region is added (0: none).
    private let randomBytesPerPage: Int
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(getpid())

    init(compressiblePercent: Int = 100) {
        randomBytesPerPage = (pageSize * (100 - compressiblePercent) / 100) & ~7
    }

    mutating func add(mebibytes: Int) {
        guard mebibytes > 0 else { return }
        let length = mebibytes << 20
        let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { failUsage("could not map \(mebibytes) MiB.") }
        regions.append((address, length))
        totalMiB += mebibytes
        if randomBytesPerPage > 0 { fill(address, length) }
        touch(address, length)
    }

    /// Writes pseudo-random words (xorshift64) over the first randomBytesPerPage bytes of each page.
    private mutating func fill(_ address: UnsafeMutableRawPointer, _ length: Int) {
        var x = state
        var offset = 0
        while offset < length {
            var word = 0
            while word < randomBytesPerPage {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
                address.storeBytes(of: x, toByteOffset: offset + word, as: UInt64.self)
                word += 8
            }
            offset += pageSize
        }
        state = x
    }

    func touchAll() {
        for (address, length) in regions { touch(address, length) }
    }

    private func touch(_ address: UnsafeMutableRawPointer, _ length: Int) {
        var offset = 0
        while offset < length {
            address.storeBytes(of: UInt8(truncatingIfNeeded: offset >> 12) | 1, toByteOffset: offset, as: UInt8.self)
            offset += pageSize
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
var ballast = Ballast(compressiblePercent: options.compressiblePercent)
if options.touchAtStart { ballast.add(mebibytes: options.holdMiB) }

var heldDescriptors: [Int32] = []
for path in options.openPaths {
    var fd = open(path, O_RDONLY)
    if fd < 0 && errno == ENOENT { fd = open(path, O_RDWR | O_CREAT, 0o644) }
    guard fd >= 0 else { failUsage("could not open \"\(path)\": \(String(cString: strerror(errno))).") }
    heldDescriptors.append(fd)
}
for path in options.flockPaths {
    let fd = open(path, O_RDWR | O_CREAT, 0o644)
    guard fd >= 0, flock(fd, LOCK_EX) == 0 else {
        failUsage("could not lock \"\(path)\" with flock: \(String(cString: strerror(errno))).")
    }
    heldDescriptors.append(fd)
}
for path in options.fcntlLockPaths {
    let fd = open(path, O_RDWR | O_CREAT, 0o644)
    var region = flock()
    region.l_type = Int16(F_WRLCK)
    region.l_whence = Int16(SEEK_SET)
    guard fd >= 0, fcntl(fd, F_SETLK, &region) == 0 else {
        failUsage("could not lock \"\(path)\" with fcntl: \(String(cString: strerror(errno))).")
    }
    heldDescriptors.append(fd)
}
if !options.touchAtStart { ballast.add(mebibytes: options.holdMiB) }

let readyLine = "ballast: ready pid=\(getpid()) held=\(ballast.totalMiB)MiB\n"
_ = readyLine.withCString { write(1, $0, strlen($0)) }
AppCalls.start(options.appCalls)

func nowMilliseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
}

let start = nowMilliseconds()
var nextGrowth = options.growEveryMilliseconds.map { start + $0 }
while true {
    let now = nowMilliseconds()
    if let limit = options.crashAfterMilliseconds, now - start >= limit {
        signal(SIGABRT, SIG_DFL)  // A plain crash, without the runtime's backtrace.
        abort()
    }
    if let limit = options.exitAfterMilliseconds, now - start >= limit { exit(0) }
    if let due = nextGrowth, now >= due, let every = options.growEveryMilliseconds {
        ballast.add(mebibytes: options.growMiB)
        ballast.touchAll()
        nextGrowth = due + every
    }
    var deadlines = [now + 1000]
    if let due = nextGrowth { deadlines.append(due) }
    if let limit = options.crashAfterMilliseconds { deadlines.append(start + limit) }
    if let limit = options.exitAfterMilliseconds { deadlines.append(start + limit) }
    let wait = max(1, deadlines.min()! - nowMilliseconds())
    usleep(UInt32(min(wait, 1000)) * 1000)
}
