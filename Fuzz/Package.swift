// swift-tools-version:6.1
import PackageDescription

/// The fuzz targets of `scripts/fuzz` (see docs/development.md): a package of its own so that
/// libFuzzer's instrumentation reaches only the code under test. The code under test is the main
/// package's own `CBOR`, `WebAuthn` and `LatchkeyAPI` products (a path dependency, no copies or links),
/// which that package compiles with `-sanitize=fuzzer,address` when `LATCHKEY_FUZZ_INSTRUMENT=1` is set
/// (as `scripts/fuzz` and `scripts/test fuzz-build` do; see the main Package.swift). swift-crypto
/// (BoringSSL), swift-certificates and swift-asn1 are built as usual, which keeps the fuzz build close to
/// a plain release build of those three.
let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
/// libFuzzer and ASan's runtimes; lld because gold fails on the instrumented objects.
let fuzzerLink: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]

let cbor: Target.Dependency = .product(name: "CBOR", package: "Latchkey")
let webAuthn: Target.Dependency = .product(name: "WebAuthn", package: "Latchkey")
let latchkeyAPI: Target.Dependency = .product(name: "LatchkeyAPI", package: "Latchkey")

/// One executable per target; each runs libFuzzer's loop (`FuzzSupport.fuzzMain`).
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name, dependencies: dependencies + ["FuzzSupport"], swiftSettings: instrumented, linkerSettings: fuzzerLink)
}

let package = Package(
    name: "LatchkeyFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Latchkey", path: ".."),
    ],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer", webAuthn]),
        fuzzTarget("FuzzCBOR", [cbor]),
        fuzzTarget("FuzzAuthenticatorData", [webAuthn, cbor]),
        fuzzTarget("FuzzAttestation", [webAuthn, cbor]),
        fuzzTarget("FuzzClientData", [webAuthn]),
        fuzzTarget("FuzzJSON", [webAuthn]),
        fuzzTarget("FuzzRegistration", [webAuthn]),
        fuzzTarget("FuzzAuthentication", [webAuthn]),
        // The server's request bodies, field rules and error catalogue (LatchkeyAPI), without the HTTP stack.
        fuzzTarget("FuzzRequestBodies", [latchkeyAPI, webAuthn]),
    ],
    swiftLanguageModes: [.v6]
)
