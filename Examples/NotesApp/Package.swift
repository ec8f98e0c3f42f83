// swift-tools-version:6.1
import PackageDescription

// An app built on appwarden's client library, depending on appwarden by path as an app's own
// package would depend on a release of it.
let package = Package(
    name: "NotesApp",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "appwarden", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "NotesApp",
            dependencies: [
                .product(name: "WardenClient", package: "appwarden"),
                .product(name: "WardenCore", package: "appwarden"),
            ]
        )
    ]
)
