// swift-tools-version: 6.1
import PackageDescription

/// A product only built, and only resolved, with the `Server` trait.
func server(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: ["Server"]))
}

/// A product only built, and only resolved, with the `NIOTransport` trait (which `Server` enables).
func nioTransport(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: ["NIOTransport"]))
}

let package = Package(
    name: "clawline-sdk",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "WireSpec", targets: ["WireSpec"]),
        .library(name: "WireCodegen", targets: ["WireCodegen"]),
        .library(name: "WireRuntime", targets: ["WireRuntime"]),
        .library(name: "WireValidator", targets: ["WireValidator"]),
        .library(name: "WireDiff", targets: ["WireDiff"]),
        .library(name: "WireProbe", targets: ["WireProbe"]),
        .library(name: "WireImport", targets: ["WireImport"]),
        .library(name: "ClawlineConformance", targets: ["ClawlineConformance"]),
        .library(name: "ClawlineProtocol", targets: ["ClawlineProtocol"]),
        .library(name: "ClawlineServer", targets: ["ClawlineServer"]),
        .library(name: "ClawlineStoreContract", targets: ["ClawlineStoreContract"]),
        .library(name: "ClawlineClient", targets: ["ClawlineClient"]),
        .executable(name: "wire", targets: ["wire"]),
        .executable(name: "clawline-server", targets: ["clawline-server"]),
        .executable(name: "clawline", targets: ["clawline"]),
        .plugin(name: "WireCodegenPlugin", targets: ["WireCodegenPlugin"]),
        .plugin(name: "GenerateProtocolDocs", targets: ["GenerateProtocolDocs"]),
    ],
    // An adopter pays only for what it names. With no trait (the default), the package resolves
    // the runtime's and the generator's dependencies alone (Yams, swift-argument-parser) and
    // swift-log for the client: an app with ClawlineProtocol and ClawlineClient resolves 3
    // packages. The server stack and the client's SwiftNIO transport are behind traits (SE-0450):
    // SwiftPM leaves a dependency out of resolution when every target dependency naming it is
    // guarded by a trait that is not enabled. This checkout's own commands pass `--traits Server`.
    traits: [
        .trait(
            name: "NIOTransport",
            description: "ClawlineClient's SwiftNIO WebSocket transport (swift-websocket), its default where URLSession has no WebSocket (Linux)."),
        .trait(
            name: "Server",
            description: "The reference provider: ClawlineServer, clawline-server and the clawline terminal client (Hummingbird, jwt-kit, "
                + "GRDB on the system's SQLite, postgres-nio, swift-nio-ssl, swift-service-lifecycle, swift-metrics, swift-prometheus).",
            enabledTraits: ["NIOTransport"]),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Tests only: certificates made in the TLS tests (jwt-kit brings both already).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // WireSpec reads YAML with libyaml, which the Yams package builds and ships (its CYaml module).
        .target(name: "WireSpec", dependencies: ["WireRuntime", .product(name: "Yams", package: "Yams")]),
        .target(name: "WireCodegen", dependencies: ["WireSpec", "WireRuntime"]),
        .target(name: "WireRuntime"),
        .target(name: "WireValidator", dependencies: ["WireSpec", "WireRuntime"]),
        .target(name: "WireDiff", dependencies: ["WireSpec", "WireRuntime"]),
        // `wire import asyncapi`: AsyncAPI 3 documents to specs.
        .target(name: "WireImport", dependencies: ["WireSpec", "WireRuntime", "WireValidator"]),
        .target(
            name: "WireProbe",
            dependencies: [
                "WireSpec", "WireRuntime", "WireValidator",
                // Its WebSocket connector comes with the NIOTransport trait; the rest is pure.
                nioTransport("WSClient", "swift-websocket"),
                nioTransport("NIOCore", "swift-nio"),
                nioTransport("NIOPosix", "swift-nio"),
                nioTransport("NIOWebSocket", "swift-nio"),
                nioTransport("NIOSSL", "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["NIOTransport"])),
            ]
        ),
        // The provider contract as a suite (`clawline conformance`): on WireProbe's sockets and the
        // generated session rules; pure apart from the sockets WireProbe's connector opens.
        .target(name: "ClawlineConformance", dependencies: ["WireProbe", "ClawlineProtocol", "WireRuntime"]),
        .executableTarget(
            name: "wire",
            dependencies: [
                "WireSpec", "WireCodegen", "WireRuntime", "WireValidator", "WireDiff", "WireProbe", "WireImport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The build-tool plugin's tool: `wire generate` alone. A plugin's tool is compiled again for
        // the host, with this package's traits, so it links the generator and nothing else.
        .executableTarget(name: "wire-generate", dependencies: ["WireCodegen", "WireSpec"]),
        .plugin(name: "WireCodegenPlugin", capability: .buildTool(), dependencies: ["wire-generate"]),
        .plugin(
            name: "GenerateProtocolDocs",
            capability: .command(
                intent: .custom(verb: "generate-protocol-docs", description: "Write the protocol reference (Markdown and HTML) of a wire spec."),
                permissions: [.writeToPackageDirectory(reason: "The protocol reference is written into the package (docs/ by default).")]
            ),
            dependencies: ["wire"]
        ),
        .target(name: "ClawlineProtocol", dependencies: ["WireRuntime"], plugins: ["WireCodegenPlugin"]),
        // Stops a build without the trait Server at once, with what to do (see its one file).
        .target(name: "ServerTraitCheck"),
        .target(
            name: "ClawlineServer",
            dependencies: [
                "ClawlineProtocol", "WireRuntime", "ServerTraitCheck",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdCore", "hummingbird"),
                server("HummingbirdWebSocket", "hummingbird-websocket"),
                server("HummingbirdTLS", "hummingbird"),
                server("JWTKit", "jwt-kit"),
                server("GRDB", "GRDB.swift"),
                server("PostgresNIO", "postgres-nio"),
                server("NIOSSL", "swift-nio-ssl"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Logging", "swift-log"),
                server("Metrics", "swift-metrics"),
                server("Prometheus", "swift-prometheus"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOCore", "swift-nio"),
                server("NIOWebSocket", "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "clawline-server",
            dependencies: [
                "ClawlineServer", "ServerTraitCheck", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Logging", "swift-log"),
            ]
        ),
        .target(
            name: "ClawlineClient",
            dependencies: [
                "ClawlineProtocol", "WireRuntime",
                nioTransport("WSClient", "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                nioTransport("NIOCore", "swift-nio"),
                nioTransport("NIOWebSocket", "swift-nio"),
                nioTransport("NIOHTTP1", "swift-nio"),
                nioTransport("NIOPosix", "swift-nio"),
                nioTransport("NIOSSL", "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "clawline",
            dependencies: [
                "ClawlineClient", "ClawlineServer", "ServerTraitCheck", "ClawlineProtocol", "WireRuntime", "ClawlineConformance", "WireProbe",
                "WireSpec", "WireValidator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Logging", "swift-log"),
            ]
        ),
        .testTarget(name: "WireSpecTests", dependencies: ["WireSpec", "WireTestSupport", .product(name: "Yams", package: "Yams")]),
        // `wire`'s own code: its plain reading of `wire validate`'s arguments.
        .testTarget(name: "WireCommandTests", dependencies: ["wire", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "ClawlineBenchmarks", dependencies: ["ClawlineProtocol"], path: "Benchmarks/ClawlineBenchmarks"),
        .executableTarget(name: "HistoryStoreBenchmarks", dependencies: ["ClawlineClient"], path: "Benchmarks/HistoryStoreBenchmarks"),
        .executableTarget(
            name: "ValidatorBenchmarks", dependencies: ["WireValidator", "WireSpec", "WireRuntime"], path: "Benchmarks/ValidatorBenchmarks"),
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                "ClawlineProtocol", "ClawlineServer", "ServerTraitCheck",
                server("Hummingbird", "hummingbird"),
                server("HummingbirdWebSocket", "hummingbird-websocket"),
                server("WSClient", "swift-websocket"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("Logging", "swift-log"),
            ],
            path: "Benchmarks/ServerBenchmarks"),
        .target(name: "WireTestSupport", dependencies: ["WireRuntime"], path: "Tests/WireTestSupport"),
        .testTarget(name: "WireRuntimeTests", dependencies: ["WireRuntime", "WireTestSupport"]),
        .testTarget(
            name: "WormholeProtocolTests", dependencies: ["WireRuntime", "WireTestSupport"], exclude: ["Frames"], plugins: ["WireCodegenPlugin"]),
        .testTarget(
            name: "CoachMeProtocolTests", dependencies: ["WireRuntime", "WireTestSupport"], exclude: ["Frames"], plugins: ["WireCodegenPlugin"]),
        .testTarget(name: "WireCodegenTests", dependencies: ["WireCodegen", "WireSpec", "WireTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "WireDiffTests", dependencies: ["WireDiff", "WireSpec", "WireTestSupport"], exclude: ["Golden"]),
        .testTarget(
            name: "WireImportTests",
            dependencies: ["WireImport", "WireSpec", "WireCodegen", "WireValidator", "WireRuntime", "WireDiff", "WireTestSupport"],
            exclude: ["Corpus"]),
        .testTarget(name: "GeneratedFixtureTests", dependencies: ["WireRuntime", "WireSpec", "WireValidator"], plugins: ["WireCodegenPlugin"]),
        .testTarget(name: "GeneratedNamesTests", dependencies: ["WireRuntime"], plugins: ["WireCodegenPlugin"]),
        .testTarget(
            name: "WireValidatorTests", dependencies: ["WireValidator", "WireSpec", "WireCodegen", "ClawlineProtocol", "WireTestSupport"],
            exclude: ["Golden"]),
        .target(name: "ClawlineStoreContract", dependencies: ["ClawlineServer", "ServerTraitCheck"]),
        .testTarget(
            name: "ClawlineServerTests",
            dependencies: [
                "ClawlineServer", "ClawlineStoreContract", "ServerTraitCheck", "ClawlineProtocol", "WireRuntime", "WireTestSupport",
                "WireProbe", "WireSpec", "ClawlineConformance", "ClawlineClient",
                server("WSClient", "swift-websocket"),
                server("GRDB", "GRDB.swift"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOCore", "swift-nio"),
                server("NIOEmbedded", "swift-nio"),
                server("NIOWebSocket", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("Hummingbird", "hummingbird"),
                server("Logging", "swift-log"),
            ],
            exclude: ["Uploads"]
        ),
        .testTarget(
            name: "ClawlineClientTests",
            dependencies: [
                "ClawlineClient", "ClawlineServer", "ServerTraitCheck", "ClawlineProtocol", "WireRuntime", "WireTestSupport", "WireValidator",
                "WireSpec",
                server("X509", "swift-certificates"),
                server("Crypto", "swift-crypto"),
                server("SwiftASN1", "swift-asn1"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Logging", "swift-log"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
            ]
        ),
        .testTarget(name: "ClawlineProtocolTests", dependencies: ["ClawlineProtocol", "WireRuntime", "WireTestSupport"], exclude: ["Frames"]),
    ],
    swiftLanguageModes: [.v6]
)
