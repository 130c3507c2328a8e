// swift-tools-version:6.1
import PackageDescription

/// The fuzz targets of `scripts/fuzz` (see the README's testing section): a package of its own so that
/// libFuzzer's instrumentation reaches only the code under test. `CBOR` and `WebAuthn` are the main
/// package's sources (symlinked), compiled here with `-sanitize=fuzzer,address`; swift-crypto (BoringSSL),
/// swift-certificates and swift-asn1 are built as usual, which keeps the fuzz build close to a plain
/// release build of those three.
let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
/// libFuzzer and ASan's runtimes; lld because gold fails on the instrumented objects.
let fuzzerLink: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]

/// One executable per target; each runs libFuzzer's loop (`FuzzSupport.fuzzMain`).
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name, dependencies: dependencies + ["FuzzSupport"], swiftSettings: instrumented, linkerSettings: fuzzerLink)
}

let package = Package(
    name: "LatchkeyFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .target(name: "CBOR", swiftSettings: instrumented),
        .target(
            name: "WebAuthn",
            dependencies: [
                "CBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            // -enable-testing: the attestation target reaches the statement formats, which are internal.
            swiftSettings: instrumented + [.unsafeFlags(["-enable-testing"])]
        ),
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer", "WebAuthn"]),
        fuzzTarget("FuzzCBOR", ["CBOR"]),
        fuzzTarget("FuzzAuthenticatorData", ["WebAuthn", "CBOR"]),
        fuzzTarget("FuzzAttestation", ["WebAuthn", "CBOR"]),
        fuzzTarget("FuzzClientData", ["WebAuthn"]),
        fuzzTarget("FuzzJSON", ["WebAuthn"]),
        fuzzTarget("FuzzRegistration", ["WebAuthn"]),
        fuzzTarget("FuzzAuthentication", ["WebAuthn"]),
        // The server's body types, compiled from its own files (symlinks) without the HTTP stack.
        fuzzTarget("FuzzRequestBodies", ["WebAuthn"]),
    ],
    swiftLanguageModes: [.v6]
)
