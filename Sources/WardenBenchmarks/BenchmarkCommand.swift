import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// Release-mode benchmarks: `swift run -c release WardenBenchmarks [core|policy|cgroup|daemon|pressure|export|all]`.
///
/// `daemon serve [RUNS] [--apps N]` takes only the served daemon's figures, `pressure [ROUNDS]` only the
/// pressure → kill figures, `pressure [ROUNDS] crowd [N]` those beside N more suspended apps,
/// `export [RUNS]` a week's journal exported and replayed, `policy [RUNS]` a policy of 1,000 apps read. `spawn-runs COUNT PROGRAM [ARGUMENTS…]`
/// is how the crowd benchmark starts `appwarden status` from a process of its own.
@main
struct BenchmarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "WardenBenchmarks",
        abstract: "Release-mode benchmarks of appwarden, printed as figures.",
        subcommands: [
            All.self, Core.self, PolicyReading.self, Cgroup.self, Daemon.self, Pressure.self, Export.self,
            SpawnRuns.self,
        ],
        defaultSubcommand: All.self)

    /// Every benchmark but the pressure ones.
    struct All: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "all", abstract: "The core, policy, cgroup, daemon and export benchmarks.")

        func run() async throws {
            CoreBenchmarks.run()
            PolicyBenchmarks.run(runs: 20)
            try await CgroupBenchmarks.run()
            try await DaemonBenchmarks.run(only: nil, runs: 3)
            try ExportBenchmarks.run(runs: 3)
        }
    }

    struct Core: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ranking, a critical sample beside 1,000 apps, core and simulator throughput, a simulated day.")

        func run() { CoreBenchmarks.run() }
    }

    struct PolicyReading: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "policy", abstract: "A policy of 1,000 apps parsed and validated.")

        @Argument(help: "How many runs.") var runs: Int = 20

        func validate() throws {
            if runs < 1 { throw ValidationError("RUNS must be at least 1, not \(runs).") }
        }

        func run() { PolicyBenchmarks.run(runs: runs) }
    }

    struct Cgroup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, attach, freeze, thaw, kill and spawn on real cgroups (root and a writable cgroup tree).")

        func run() async throws { try await CgroupBenchmarks.run() }
    }

    struct Daemon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The daemon on real cgroups (root, cgroup2 with freeze; ballast beside the benchmarks or in APPWARDEN_BALLAST)."
        )

        @Argument(help: "\"serve\" for only the served daemon's figures.") var selection: String?
        @Argument(help: "How many runs of the served daemon.") var runs: Int = 3
        @Option(help: "How many suspended apps the served daemon holds.") var apps: Int = 100

        func validate() throws {
            if let selection, selection != "serve" {
                throw ValidationError("The only selection is \"serve\", not \"\(selection)\".")
            }
            if runs < 1 { throw ValidationError("RUNS must be at least 1, not \(runs).") }
            if apps < 1 { throw ValidationError("--apps must be at least 1, not \(apps).") }
        }

        func run() async throws { try await DaemonBenchmarks.run(only: selection, runs: runs, apps: apps) }
    }

    struct Pressure: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Pressure → kill, at three growth rates and with the kernel alone; with \"crowd N\", beside N more suspended apps."
        )

        @Argument(help: "Rounds of each pressure benchmark.") var rounds: Int = 20
        @Argument(help: "\"crowd\" to add suspended apps.") var crowd: String?
        @Argument(help: "How many suspended apps the crowd has.") var size: Int = 1000

        func validate() throws {
            if rounds < 1 { throw ValidationError("ROUNDS must be at least 1, not \(rounds).") }
            if let crowd, crowd != "crowd" {
                throw ValidationError("After ROUNDS only \"crowd [N]\" may follow, not \"\(crowd)\".")
            }
            if size < 1 { throw ValidationError("N must be at least 1, not \(size).") }
        }

        func run() async throws {
            if crowd != nil {
                try await DaemonBenchmarks.run(crowd: size, rounds: rounds)
            } else {
                try await DaemonBenchmarks.run(onlyPressure: true, rounds: rounds)
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A week's journal exported and replayed.")

        @Argument(help: "How many runs.") var runs: Int = 3

        func validate() throws {
            if runs < 1 { throw ValidationError("RUNS must be at least 1, not \(runs).") }
        }

        func run() throws { try ExportBenchmarks.run(runs: runs) }
    }

    /// Starts a program COUNT times from this process and prints how long each took.
    struct SpawnRuns: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "spawn-runs", abstract: "Starts PROGRAM COUNT times from this process, timing each.")

        @Argument(help: "How many times.") var count: Int
        @Argument(parsing: .captureForPassthrough, help: "The program and its arguments.") var command: [String]

        func validate() throws {
            if count < 1 { throw ValidationError("COUNT must be at least 1, not \(count).") }
            if command.isEmpty { throw ValidationError("Name the program to start.") }
        }

        func run() { DaemonBenchmarks.spawnRuns(count, of: command) }
    }
}
