import WardenCore
import WardenPolicy

/// Reading policy text: a policy of 1,000 apps parsed and validated, as `policy check` and a
/// daemon's policy reload do. Prints a line per figure.
enum PolicyBenchmarks {
    static func run(runs: Int) {
        read(apps: 1_000, runs: runs)
    }

    /// Parses and validates a policy of `count` apps, each with a comment, a table of its own,
    /// an argument array, background modes, an inline environment table and a fetch window.
    static func read(apps count: Int, runs: Int) {
        let text = policy(apps: count)
        var samples: [Double] = []
        var checksum = 0
        for _ in 0..<runs {
            let start = Stopwatch()
            do {
                let policy = try PolicyLoader.parse(text, file: "benchmark.toml")
                checksum &+= policy.apps.count
            } catch {
                fatalError("The benchmark's policy was refused:\n\(error)")
            }
            samples.append(start.elapsedMicroseconds / 1000)
        }
        let lines = text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        report(
            "read a policy of \(count) apps (\(lines) lines, \(text.utf8.count / 1024) KiB), \(runs) runs", samples,
            unit: "ms")
        precondition(checksum == count * runs)
    }

    /// The policy text: the default settings' tables, then `count` apps.
    static func policy(apps count: Int) -> String {
        var text = """
            foreground_slots = 2

            [memory]
            warning_enter = "15%"
            warning_exit = "20%"
            critical_enter = "5%"
            critical_exit = "10%"
            kill_foreground = false

            [fetch]
            window = "30s"

            """
        for index in 0..<count {
            text += """

                # App \(index): fetches in the background every \(15 + index % 45) minutes.
                [apps.app-\(index)]
                command = "/usr/bin/app-\(index)"
                args = ["--hold", "\(index % 256)", "--fetch", 'complete:newData:2s']
                background_modes = ["fetch"]
                fetch_interval = "\(15 + index % 45)m"
                env = { LANG = "C.UTF-8", APP_INDEX = "\(index)" }
                protected = \(index % 100 == 0)

                [apps.app-\(index).fetch]
                window = "20s"

                """
        }
        return text
    }
}
