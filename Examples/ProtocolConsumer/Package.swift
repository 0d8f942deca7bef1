// swift-tools-version: 6.1
// An app-side package that adopts the SDK the way another project would: it depends on the SDK
// by path, generates its own protocol from Spec/telemetry.yaml with WireCodegenPlugin, and uses
// the generated ClawlineProtocol product.
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
        .executableTarget(
            name: "consumer",
            dependencies: ["TelemetryProtocol", .product(name: "ClawlineProtocol", package: "clawline-sdk")]
        ),
        .testTarget(
            name: "ConsumerTests",
            dependencies: ["TelemetryProtocol", .product(name: "ClawlineProtocol", package: "clawline-sdk")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
