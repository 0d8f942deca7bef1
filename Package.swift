// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "clawline-sdk",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "WireSpec", targets: ["WireSpec"]),
        .library(name: "WireCodegen", targets: ["WireCodegen"]),
        .library(name: "WireRuntime", targets: ["WireRuntime"]),
        .library(name: "WireValidator", targets: ["WireValidator"]),
        .library(name: "WireDiff", targets: ["WireDiff"]),
        .library(name: "ClawlineProtocol", targets: ["ClawlineProtocol"]),
        .library(name: "ClawlineServer", targets: ["ClawlineServer"]),
        .library(name: "ClawlineClient", targets: ["ClawlineClient"]),
        .executable(name: "wire", targets: ["wire"]),
        .executable(name: "clawline-server", targets: ["clawline-server"]),
        .executable(name: "clawline", targets: ["clawline"]),
        .plugin(name: "WireCodegenPlugin", targets: ["WireCodegenPlugin"]),
        .plugin(name: "GenerateProtocolDocs", targets: ["GenerateProtocolDocs"]),
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
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(name: "WireSpec", dependencies: ["WireRuntime", .product(name: "Yams", package: "Yams")]),
        .target(name: "WireCodegen", dependencies: ["WireSpec", "WireRuntime"]),
        .target(name: "WireRuntime"),
        .target(name: "WireValidator", dependencies: ["WireSpec", "WireRuntime"]),
        .target(name: "WireDiff", dependencies: ["WireSpec", "WireRuntime"]),
        .executableTarget(
            name: "wire",
            dependencies: [
                "WireSpec", "WireCodegen", "WireRuntime", "WireValidator", "WireDiff",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .plugin(name: "WireCodegenPlugin", capability: .buildTool(), dependencies: ["wire"]),
        .plugin(
            name: "GenerateProtocolDocs",
            capability: .command(
                intent: .custom(verb: "generate-protocol-docs", description: "Write the protocol reference (Markdown and HTML) of a wire spec."),
                permissions: [.writeToPackageDirectory(reason: "The protocol reference is written into the package (docs/ by default).")]
            ),
            dependencies: ["wire"]
        ),
        .target(name: "ClawlineProtocol", dependencies: ["WireRuntime"], plugins: ["WireCodegenPlugin"]),
        .target(
            name: "ClawlineServer",
            dependencies: [
                "ClawlineProtocol", "WireRuntime",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "clawline-server",
            dependencies: [
                "ClawlineServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ClawlineClient",
            dependencies: [
                "ClawlineProtocol", "WireRuntime",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "clawline",
            dependencies: [
                "ClawlineClient", "ClawlineServer", "ClawlineProtocol", "WireRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "WireSpecTests", dependencies: ["WireSpec", "WireTestSupport"]),
        .executableTarget(name: "ClawlineBenchmarks", dependencies: ["ClawlineProtocol"], path: "Benchmarks/ClawlineBenchmarks"),
        .executableTarget(
            name: "ValidatorBenchmarks", dependencies: ["WireValidator", "WireSpec", "WireRuntime"], path: "Benchmarks/ValidatorBenchmarks"),
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                "ClawlineProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ServerBenchmarks"),
        .target(name: "WireTestSupport", dependencies: ["WireRuntime"], path: "Tests/WireTestSupport"),
        .testTarget(name: "WireRuntimeTests", dependencies: ["WireRuntime"]),
        .testTarget(
            name: "WormholeProtocolTests", dependencies: ["WireRuntime", "WireTestSupport"], exclude: ["Frames"], plugins: ["WireCodegenPlugin"]),
        .testTarget(
            name: "CoachMeProtocolTests", dependencies: ["WireRuntime", "WireTestSupport"], exclude: ["Frames"], plugins: ["WireCodegenPlugin"]),
        .testTarget(name: "WireCodegenTests", dependencies: ["WireCodegen", "WireSpec", "WireTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "WireDiffTests", dependencies: ["WireDiff", "WireSpec", "WireTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "GeneratedFixtureTests", dependencies: ["WireRuntime", "WireSpec", "WireValidator"], plugins: ["WireCodegenPlugin"]),
        .testTarget(name: "GeneratedNamesTests", dependencies: ["WireRuntime"], plugins: ["WireCodegenPlugin"]),
        .testTarget(
            name: "WireValidatorTests", dependencies: ["WireValidator", "WireSpec", "WireCodegen", "ClawlineProtocol", "WireTestSupport"],
            exclude: ["Golden"]),
        .testTarget(
            name: "ClawlineServerTests",
            dependencies: [
                "ClawlineServer", "ClawlineProtocol", "WireRuntime", "WireTestSupport",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Uploads"]
        ),
        .testTarget(
            name: "ClawlineClientTests",
            dependencies: [
                "ClawlineClient", "ClawlineServer", "ClawlineProtocol", "WireRuntime", "WireTestSupport", "WireValidator", "WireSpec",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "ClawlineProtocolTests", dependencies: ["ClawlineProtocol", "WireRuntime", "WireTestSupport"], exclude: ["Frames"]),
    ],
    swiftLanguageModes: [.v6]
)
