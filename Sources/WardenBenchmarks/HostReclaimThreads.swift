import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The host kernel's own memory-management threads (`kswapd*`, and DAMON's `kdamond.*` where the
/// kernel runs DAMON-based reclaim), whose CPU shares the cores with what a benchmark measures.
/// Read before and after a benchmark, their share of a core says how busy the host's reclaim was:
/// on the build host, the same code's figures beside a thousand apps were twice as high while
/// `kdamond.0` took 15–29 % of a core as while it took 2 %.
struct HostReclaimThreads {
    /// CPU seconds (user and system) of each such thread, by its name.
    var cpuSeconds: [String: Double]
    /// When they were read.
    var time: ContinuousClock.Instant

    /// The threads as they are now (none where `/proc` cannot be read).
    static func now() -> HostReclaimThreads {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        var cpuSeconds: [String: Double] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries where entry.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let thread = threadTime(stat: text), thread.name.hasPrefix("kswapd") || thread.name.hasPrefix("kdamond")
            else { continue }
            cpuSeconds[thread.name, default: 0] += thread.ticks / ticksPerSecond
        }
        return HostReclaimThreads(cpuSeconds: cpuSeconds, time: .now)
    }

    /// The name and CPU clock ticks (user and system) of a `/proc/PID/stat` line; nil when it
    /// cannot be read. The name is between the first `(` and the last `)`, and may hold either.
    static func threadTime(stat text: String) -> (name: String, ticks: Double)? {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else {
            return nil
        }
        // After the name come the state (field 3) and the rest; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (String(text[text.index(after: open)..<close]), user + system)
    }

    /// Each thread's share of one core since `earlier`, as "kdamond.0 2.4 %, kswapd0 0.0 %", or
    /// a sentence saying there are none.
    func shares(since earlier: HostReclaimThreads) -> String {
        let elapsed = DaemonBenchmarks.seconds(time - earlier.time)
        guard elapsed > 0, !cpuSeconds.isEmpty else { return "none found in /proc" }
        return cpuSeconds.keys.sorted().map { name in
            let share = (cpuSeconds[name, default: 0] - earlier.cpuSeconds[name, default: 0]) / elapsed * 100
            return "\(name) \(String(format: "%.1f", share)) %"
        }.joined(separator: ", ") + " of a core"
    }
}
