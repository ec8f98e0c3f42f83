// swift-tools-version:6.1
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "appwarden",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "appwarden", targets: ["appwarden"]),
        .executable(name: "appwarden-relay", targets: ["appwarden-relay"]),
        .library(name: "WardenCore", targets: ["WardenCore"]),
        .library(name: "WardenPolicy", targets: ["WardenPolicy"]),
        .library(name: "WardenScenario", targets: ["WardenScenario"]),
        .library(name: "WardenSimulator", targets: ["WardenSimulator"]),
        .library(name: "WardenTesting", targets: ["WardenTesting"]),
        .library(name: "WardenAPI", targets: ["WardenAPI"]),
        .library(name: "WardenClient", targets: ["WardenClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Without the default traits: no full Foundation (and its ICU data), no swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        // A strict JSON reader, standard library only: push payloads, accessory events, answers.
        .target(name: "WardenJSON"),
        .target(name: "WardenCore", dependencies: ["WardenJSON"]),
        .target(name: "WardenPlatform"),
        .target(name: "WardenPolicy", dependencies: ["WardenCore"]),
        .systemLibrary(
            name: "CLibcgroup",
            pkgConfig: "libcgroup",
            providers: [.apt(["libcgroup-dev"])]
        ),
        .target(name: "CWardenSpawn"),
        .target(
            name: "WardenCgroup",
            dependencies: [
                "CLibcgroup", "CWardenSpawn", "WardenPlatform",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The SQLite layer under the journal: Swift over the C library, without Foundation.
        .target(name: "WardenSQLite", dependencies: ["CSQLite"]),
        .target(name: "WardenAPI", dependencies: ["WardenCore", "WardenJSON"]),
        .target(name: "WardenClient", dependencies: ["WardenAPI", "WardenPlatform"]),
        // The scenario format: its model, its reader, and its writers (step text, journal inputs,
        // exports, traces).
        .target(name: "WardenScenario", dependencies: ["WardenCore", "WardenAPI", "WardenPolicy", "WardenPlatform"]),
        .target(name: "WardenSimulator", dependencies: ["WardenCore", "WardenScenario"]),
        .target(
            name: "WardenRuntime",
            dependencies: [
                "WardenCore", "WardenPolicy", "WardenCgroup", "WardenAPI", "WardenPlatform", "WardenSQLite",
                "WardenScenario", "CWardenSpawn",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .target(name: "WardenTesting", dependencies: ["WardenRuntime", "WardenCgroup", "WardenCore", "WardenAPI"]),
        .executableTarget(name: "ballast", dependencies: ["WardenClient"]),
        // The program a log relay runs once it has left the daemon's process (C only).
        .executableTarget(name: "appwarden-relay", dependencies: ["CWardenSpawn"]),
        .executableTarget(
            name: "appwarden",
            dependencies: [
                "WardenCore", "WardenPolicy", "WardenScenario", "WardenSimulator", "WardenRuntime", "WardenClient",
                "WardenAPI", "WardenCgroup", "WardenPlatform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "WardenBenchmarks",
            dependencies: [
                "WardenCore", "WardenPolicy", "WardenScenario", "WardenSimulator", "WardenCgroup", "WardenRuntime",
                "WardenClient", "WardenAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "WardenCoreTests", dependencies: ["WardenCore", "WardenScenario", "WardenSimulator"]),
        .testTarget(name: "WardenCgroupTests", dependencies: ["WardenCgroup", "WardenTesting"]),
        .testTarget(
            name: "WardenRuntimeTests",
            dependencies: [
                "WardenRuntime", "WardenClient", "WardenAPI", "WardenCore", "WardenCgroup", "WardenTesting",
                "WardenScenario", "WardenSimulator", "WardenPolicy", "WardenSQLite", "WardenJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(name: "WardenSQLiteTests", dependencies: ["WardenSQLite"]),
        .testTarget(name: "WardenPolicyTests", dependencies: ["WardenPolicy", "WardenCore"]),
        .testTarget(name: "WardenPlatformTests", dependencies: ["WardenPlatform"]),
        .testTarget(name: "AppwardenCommandTests", dependencies: ["appwarden", "WardenAPI", "WardenCore"]),
        .testTarget(
            name: "WardenSimulatorTests",
            dependencies: ["WardenScenario", "WardenSimulator", "WardenPolicy", "WardenCore"]
        ),
    ]
)

for target in package.targets
where target.type != .system && !target.name.hasPrefix("C")
    && target.name != "appwarden-relay"
{
    target.swiftSettings = (target.swiftSettings ?? []) + upcoming
}
