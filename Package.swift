// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CBOR", targets: ["CBOR"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
        .library(name: "SoftAuthenticator", targets: ["SoftAuthenticator"]),
        .executable(name: "latchkey", targets: ["latchkey"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "CBOR"),
        .target(
            name: "WebAuthn",
            dependencies: [
                "CBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "SoftAuthenticator",
            dependencies: [
                "WebAuthn", "CBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "WebAuthn", "SoftAuthenticator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Release-mode benchmark, run by hand (`swift run -c release latchkey-bench`), never by the tests.
        .executableTarget(
            name: "latchkey-bench",
            dependencies: ["WebAuthn", "CBOR", .product(name: "Crypto", package: "swift-crypto")],
            path: "Benchmarks/VerificationBenchmark"
        ),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(
            name: "WebAuthnTests",
            dependencies: [
                "WebAuthn", "CBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "SoftAuthenticatorTests",
            dependencies: ["SoftAuthenticator", "WebAuthn", "CBOR", .product(name: "X509", package: "swift-certificates")]
        ),
        .testTarget(name: "LatchkeyCLITests", dependencies: ["latchkey", "WebAuthn"]),
    ],
    swiftLanguageModes: [.v6]
)
