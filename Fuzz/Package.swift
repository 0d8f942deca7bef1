// swift-tools-version: 6.1
// libFuzzer targets for the SDK's parsers. Build and run them with `Fuzz/run` (see Fuzz/README.md).
// They are a package of their own because every module they link is built with
// `-sanitize=fuzzer,address`; the Clawline types are generated into `.generated/` by `Fuzz/run`
// with `wire generate`, since the build-tool plugin's tool must not be built with a fuzzer.
import PackageDescription

let sdk = "clawline-sdk"

func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzDriver", .product(name: "WireRuntime", package: sdk)] + dependencies)
}

let package = Package(
    name: "clawline-fuzz",
    dependencies: [.package(name: sdk, path: ".."), .package(url: "https://github.com/apple/swift-nio", from: "2.101.2")],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzDriver", dependencies: ["CFuzzDriver"]),
        .target(
            name: "FuzzedClawlineProtocol", dependencies: [.product(name: "WireRuntime", package: sdk)], path: ".generated/FuzzedClawlineProtocol"),
        fuzzTarget("FuzzTapeScanner", []),
        fuzzTarget("FuzzScannerDifferential", []),
        fuzzTarget("FuzzFrameDecoding", ["FuzzedClawlineProtocol"]),
        fuzzTarget("FuzzCaptureReader", [.product(name: "WireSpec", package: sdk), .product(name: "WireValidator", package: sdk)]),
        // The upload handler's parsing, compiled from the server's own file (a symbolic link), so
        // the fuzzer builds NIOCore, not the whole server stack.
        .executableTarget(name: "FuzzUploadParser", dependencies: ["FuzzDriver", .product(name: "NIOCore", package: "swift-nio")]),
    ],
    swiftLanguageModes: [.v6]
)
