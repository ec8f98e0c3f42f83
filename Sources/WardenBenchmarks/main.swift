// Release-mode benchmarks: `swift run -c release WardenBenchmarks [core|cgroup|daemon|all]`.
#if canImport(Glibc)
    import Glibc
#endif
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "all"
guard ["core", "cgroup", "daemon", "all"].contains(which) else {
    print("usage: WardenBenchmarks [core|cgroup|daemon|all]")
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
