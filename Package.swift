// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "clawline-sdk",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "WireSpec", targets: ["WireSpec"]),
        .executable(name: "wire", targets: ["wire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "WireSpec", dependencies: [.product(name: "Yams", package: "Yams")]),
        .executableTarget(
            name: "wire",
            dependencies: [
                "WireSpec",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "WireSpecTests", dependencies: ["WireSpec", "wire"]),
    ],
    swiftLanguageModes: [.v6]
)
