import ArgumentParser
import Dispatch
import FoundationEssentials
import Synchronization
import WardenAPI
import WardenClient
import WardenPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `appwarden top`: a live full-screen view of the apps and the device, redrawn every second.
struct TopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Show the apps and the device's memory live, redrawn every second; q quits.",
        discussion: """
            Each app's state, footprint, how much of it is swapped, kill band, background time left, next \
            fetch wake and held resources; the device's available memory, pressure level and thresholds; \
            the last kills. It draws in colour when TERM names a terminal and NO_COLOR is not set, fits the \
            terminal's size, and restores the terminal when it quits on q, Ctrl-C, SIGINT or SIGTERM. \
            While the daemon cannot be reached it says so and keeps trying.
            """)
    @OptionGroup var client: ClientOptions

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw ClientExit.refused(
                reason: "usage",
                "top needs a terminal on standard input and output; use appwarden status for a table.")
        }
        let terminal = try TopTerminal()
        defer { terminal.restore() }
        let color = TopScreen.wantsColor(
            environment: ProcessInfo.processInfo.environment, outputIsTerminal: true)
        let connection = client.connection
        var snapshot = TopSnapshot(
            apps: [], device: nil, nowMillis: Self.nowMillis(), socket: client.socketPath, problem: nil)
        while !terminal.quitRequested {
            snapshot = await Self.read(connection, previous: snapshot)
            let size = terminal.size()
            terminal.draw(TopScreen.render(snapshot, width: size.width, height: size.height, color: color))
            if await terminal.waitForQuit(upTo: 1000) { break }
        }
    }

    /// Reads the apps and the device; keeps the last figures and names the problem when the
    /// daemon cannot be read.
    static func read(_ connection: WardenConnection, previous: TopSnapshot) async -> TopSnapshot {
        var next = previous
        next.nowMillis = nowMillis()
        do {
            next.apps = try await connection.call(ControlAPI.apps)
            next.cpuPercents = TopSnapshot.cpuPercents(
                of: next.apps, at: next.nowMillis, after: previous.apps, at: previous.nowMillis)
            next.device = try await connection.call(ControlAPI.device)
            next.problem = nil
        } catch let error as WardenClientError where error.code == .refused {
            next.problem = error.message
        } catch {
            let reason = (error as? WardenClientError)?.message ?? "\(error)"
            next.problem = "Cannot reach the daemon at \(connection.socketPath): \(reason) Trying again every second."
        }
        return next
    }

    static func nowMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// The terminal while `top` runs: raw input without echo, the alternate screen, the cursor
/// hidden; all undone by `restore()`, which the command calls on every way out, including
/// SIGINT, SIGTERM and SIGHUP (caught, turned into a quit request).
final class TopTerminal: @unchecked Sendable {
    private var saved = termios()
    private let restored = Atomic<Bool>(false)
    /// A pipe written to by the signal handlers and the resize handler, to wake the wait.
    private let wake: (read: Int32, write: Int32)
    private var sources: [any DispatchSourceSignal] = []
    private let quit = Atomic<Bool>(false)

    init() throws {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw ValidationError(
                "appwarden top cannot read the terminal's settings: \(String(cString: strerror(errno))).")
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw ValidationError("appwarden top cannot make a pipe: \(String(cString: strerror(errno))).")
        }
        wake = (fds[0], fds[1])
        _ = fcntl(wake.write, F_SETFL, fcntl(wake.write, F_GETFL) | O_NONBLOCK)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_cc.6 = 1  // VMIN
        raw.c_cc.5 = 0  // VTIME
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        let queue = DispatchQueue(label: "appwarden.top.signals")
        for number in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.signalled(number) }
            source.resume()
            sources.append(source)
        }
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    var quitRequested: Bool {
        quit.load(ordering: .relaxed)
    }

    private func signalled(_ number: Int32) {
        if number != SIGWINCH {
            quit.store(true, ordering: .relaxed)
        }
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    /// The terminal's size, from `ioctl(TIOCGWINSZ)`; 80×24 when it does not say.
    func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Draws a frame from the top left, clearing what each line and the screen leave over.
    func draw(_ lines: [String]) {
        write("\u{1B}[H" + lines.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J")
    }

    /// Waits up to `milliseconds` for a key, a signal or a resize; true when it is time to quit
    /// (`q`, `Q`, Ctrl-C or Ctrl-D typed, or a terminating signal).
    func waitForQuit(upTo milliseconds: Int32) async -> Bool {
        let wakeRead = wake.read
        let quitKey: Bool = await withCheckedContinuation { continuation in
            do {
                try DetachedThread.start(name: "appwarden-top-keys") {
                    var fds = [
                        pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                    ]
                    _ = poll(&fds, 2, milliseconds)
                    var quit = false
                    if fds[1].revents != 0 {
                        var drain = [UInt8](repeating: 0, count: 64)
                        _ = read(wakeRead, &drain, drain.count)
                    }
                    if fds[0].revents & Int16(POLLIN) != 0 {
                        var keys = [UInt8](repeating: 0, count: 64)
                        let count = read(STDIN_FILENO, &keys, keys.count)
                        if count <= 0 {
                            quit = true
                        } else {
                            quit = keys.prefix(count).contains {
                                $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") || $0 == 3 || $0 == 4
                            }
                        }
                    } else if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                        quit = true
                    }
                    continuation.resume(returning: quit)
                }
            } catch {
                continuation.resume(returning: true)
            }
        }
        return quitKey || quitRequested
    }

    /// Leaves the alternate screen, shows the cursor and puts the terminal's settings back.
    func restore() {
        guard restored.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        for source in sources { source.cancel() }
        close(wake.read)
        close(wake.write)
    }

    private func write(_ text: String) {
        StandardStream.output.write(text)
    }
}
