// swift-tools-version:6.1
import PackageDescription

// Coverage-guided fuzz targets (libFuzzer) for the parsers that read outside input. Built only
// by scripts/fuzz.sh, with `-sanitize=fuzzer`: each target defines `LLVMFuzzerTestOneInput`
// and libFuzzer supplies `main`.
let package = Package(
    name: "appwarden-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "appwarden", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "FuzzPolicy",
            dependencies: [.product(name: "WardenPolicy", package: "appwarden")]
        ),
        .executableTarget(
            name: "FuzzScenario",
            dependencies: [.product(name: "WardenScenario", package: "appwarden")]
        ),
        .executableTarget(
            name: "FuzzSimulation",
            dependencies: [
                .product(name: "WardenScenario", package: "appwarden"),
                .product(name: "WardenSimulator", package: "appwarden"),
            ]
        ),
        .executableTarget(
            name: "FuzzPushPayload",
            dependencies: [.product(name: "WardenCore", package: "appwarden")]
        ),
    ]
)
