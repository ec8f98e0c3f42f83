// Release-mode benchmarks: `swift run -c release WardenBenchmarks [core|cgroup|daemon|pressure|export|all]`;
// `WardenBenchmarks daemon serve [RUNS]` takes only the served daemon's figures, `pressure [ROUNDS]` only
// the pressure → kill figures, `pressure [ROUNDS] crowd [N]` those beside N more suspended apps,
// `export [RUNS]` a week's journal exported and replayed. `spawn-runs COUNT PROGRAM [ARGUMENTS…]` is
// how the crowd benchmark starts `appwarden status` from a process of its own.
#if canImport(Glibc)
    import Glibc
#endif
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "all"
if which == "spawn-runs", let count = arguments.dropFirst().first.flatMap({ Int($0) }) {
    DaemonBenchmarks.spawnRuns(count, of: Array(arguments.dropFirst(2)))
    exit(0)
}
guard ["core", "cgroup", "daemon", "pressure", "export", "all"].contains(which) else {
    print(
        "usage: WardenBenchmarks [core|cgroup|daemon [serve [RUNS]]|pressure [ROUNDS [crowd [N]]]|export [RUNS]|all]")
    exit(2)
}
if which == "core" || which == "all" {
    CoreBenchmarks.run()
}
if which == "cgroup" || which == "all" {
    try await CgroupBenchmarks.run()
}
if which == "daemon" || which == "all" {
    let selection = arguments.dropFirst().first
    let runs = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 3
    try await DaemonBenchmarks.run(only: selection, runs: max(1, runs))
}
if which == "pressure" {
    let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 20
    if arguments.dropFirst(2).first == "crowd" {
        let crowd = arguments.dropFirst(3).first.flatMap { Int($0) } ?? 1000
        try await DaemonBenchmarks.run(crowd: max(1, crowd), rounds: max(1, rounds))
    } else {
        try await DaemonBenchmarks.run(onlyPressure: true, rounds: max(1, rounds))
    }
}
if which == "export" || which == "all" {
    let runs = arguments.dropFirst().first.flatMap { Int($0) } ?? 3
    try ExportBenchmarks.run(runs: max(1, runs))
}
