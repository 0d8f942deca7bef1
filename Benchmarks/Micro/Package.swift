// swift-tools-version: 6.1
// Micro-benchmarks of the SDK's hot paths on ordo-one/benchmark (package-benchmark, as it was named): time and allocations per
// operation. A package of its own (as Fuzz/ is), so an adopter of the SDK never resolves the
// benchmark's dependencies. Run: `swift package --package-path Benchmarks/Micro benchmark`.
// The MallocInterposer trait alone: the default RuntimeInterposer trait needs
// ordo-one/swift-runtime-interposer on Linux with Swift 6.3, which the package mirror lacks.
import PackageDescription

let package = Package(
    name: "clawline-micro-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "clawline-sdk", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Codec",
            dependencies: [
                .product(name: "ClawlineProtocol", package: "clawline-sdk"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Codec",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Validate",
            dependencies: [
                .product(name: "WireValidator", package: "clawline-sdk"),
                .product(name: "WireSpec", package: "clawline-sdk"),
                .product(name: "WireRuntime", package: "clawline-sdk"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Validate",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
