// Release-mode benchmarks: `swift run -c release WardenBenchmarks [core|cgroup|daemon|pressure|all]`.
#if canImport(Glibc)
    import Glibc
#endif
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "all"
guard ["core", "cgroup", "daemon", "pressure", "all"].contains(which) else {
    print("usage: WardenBenchmarks [core|cgroup|daemon|pressure|all] [ROUNDS]")
    exit(2)
}
if which == "core" || which == "all" {
    CoreBenchmarks.run()
}
if which == "cgroup" || which == "all" {
    try await CgroupBenchmarks.run()
}
if which == "daemon" || which == "all" {
    try await DaemonBenchmarks.run()
}
if which == "pressure" {
    let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 20
    try await DaemonBenchmarks.run(onlyPressure: true, rounds: max(1, rounds))
}
