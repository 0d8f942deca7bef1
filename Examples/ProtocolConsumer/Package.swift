// swift-tools-version: 6.1
// An app-side package that adopts the SDK the way another project would: it depends on the SDK
// by path, generates its own protocol from Spec/telemetry.yaml with WireCodegenPlugin (and Clawline's
// May 2026 revision from the SDK's Spec/clawline-revisions/2026-05.yaml), and uses
// the generated ClawlineProtocol product and the reference client. It enables no package trait, as
// an app would not: it resolves no package of the server stack, and on Linux the client's default
// transport is the one that says which trait to enable.
//
// Build it with `swift build --product consumer` (or `swift run consumer`, `swift test`): SwiftPM's
// plain `swift build` also builds the executables of a package depended on by path (the SDK's
// clawline and clawline-server, which need the trait Server). A package that depends on the SDK
// by URL builds only what it uses.
import PackageDescription

let package = Package(
    name: "ProtocolConsumer",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "clawline-sdk", path: "../..")
    ],
    targets: [
        .target(
            name: "TelemetryProtocol",
            dependencies: [.product(name: "WireRuntime", package: "clawline-sdk")],
            plugins: [.plugin(name: "WireCodegenPlugin", package: "clawline-sdk")]
        ),
        .target(
            name: "Clawline2026Protocol",
            dependencies: [.product(name: "WireRuntime", package: "clawline-sdk")],
            plugins: [.plugin(name: "WireCodegenPlugin", package: "clawline-sdk")]
        ),
        .executableTarget(
            name: "consumer",
            dependencies: [
                "TelemetryProtocol", .product(name: "ClawlineProtocol", package: "clawline-sdk"),
                .product(name: "ClawlineClient", package: "clawline-sdk"),
            ]
        ),
        .testTarget(
            name: "ConsumerTests",
            dependencies: ["TelemetryProtocol", "Clawline2026Protocol", .product(name: "ClawlineProtocol", package: "clawline-sdk")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
