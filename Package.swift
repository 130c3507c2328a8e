// swift-tools-version:6.2
import PackageDescription

/// Every target of this package (added to each at the end of this file): a warning in our own code fails
/// the build. Per target, unlike `-Xswiftc -warnings-as-errors`, so the dependencies' warnings stay warnings.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// `LATCHKEY_FUZZ_INSTRUMENT=1` (set by `scripts/fuzz` and `scripts/test fuzz-build`, which build `Fuzz/`, a
/// package that depends on this one by path): the code under test, `CBOR`, `WebAuthn` and `LatchkeyAPI`,
/// is compiled with libFuzzer's coverage and AddressSanitizer, while swift-crypto, swift-certificates and
/// swift-asn1 are built as usual. `-enable-testing` lets the fuzz targets `@testable import` WebAuthn (the
/// attestation formats are internal) and LatchkeyAPI (its declarations are `package`, which another
/// package only sees that way). Unset, as in every other build, these settings are empty.
let fuzzInstrumented = Context.environment["LATCHKEY_FUZZ_INSTRUMENT"] == "1"
func fuzzInstrumentation(testable: Bool = false) -> [SwiftSetting] {
    guard fuzzInstrumented else { return [] }
    return [.unsafeFlags(["-sanitize=fuzzer,address"] + (testable ? ["-enable-testing"] : []))]
}

/// `latchkey --version`'s commit (LatchkeyBuildInfo): scripts/package sets LATCHKEY_COMMIT for its release build
/// (`git rev-parse`, with "+modified" for a tree with uncommitted changes); any other build has none and says
/// "development build". Only the characters a commit name needs, so the value cannot break out of the C string.
let buildCommit: [CSetting] = Context.environment["LATCHKEY_COMMIT"]
    .flatMap { commit in commit.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-._".contains($0)) } ? commit : nil }
    .flatMap { $0.isEmpty ? nil : [.define("LATCHKEY_COMMIT", to: "\"\($0)\"")] } ?? []

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CBOR", targets: ["CBOR"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
        // For Fuzz/ (FuzzRequestBodies); its declarations are `package`, so it is no API for other packages.
        .library(name: "LatchkeyAPI", targets: ["LatchkeyAPI"]),
        .library(name: "SoftAuthenticator", targets: ["SoftAuthenticator"]),
        .library(name: "LatchkeyServer", targets: ["LatchkeyServer"]),
        .library(name: "LatchkeyClient", targets: ["LatchkeyClient"]),
        .library(name: "LatchkeyAppleAuthenticator", targets: ["LatchkeyAppleAuthenticator"]),
        .executable(name: "latchkey", targets: ["latchkey"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        // Tests only: the driver DirectSQLite stands in for, which SQLiteDriverComparisonTests holds it to.
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // Tracing (docs/operating.md): spans through swift-distributed-tracing's API, exported by swift-otel
        // when the OTEL_* variables turn it on. OTLP over HTTP only: the default traits add OTLP/gRPC, whose
        // grpc-swift packages cost minutes more of every clean build (CI's included) for a transport we don't offer.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // `swift package generate-documentation` for the DocC catalogs (Sources/*/*.docc); scripts/test checks them.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "CBOR", swiftSettings: fuzzInstrumentation()),
        // QR codes (byte mode, versions 1-10): `latchkey login --device` draws its address in the terminal.
        .target(name: "QRCode"),
        .systemLibrary(name: "CSQLite3", path: "Sources/CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // OpenSSL's libcrypto, for Ed448 only (swift-crypto has none). Linux only: Apple platforms ship no
        // libcrypto headers, and there WebAuthn builds without Ed448 (`Ed448PublicKey.isAvailable`).
        // The version (VERSION, read by #embed at compile time) and the commit `latchkey --version` prints.
        .target(name: "LatchkeyBuildInfo", cSettings: buildCommit),
        .systemLibrary(name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "WebAuthn",
            dependencies: [
                "CBOR",
                .target(name: "CLibCrypto", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: fuzzInstrumentation(testable: true)
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
        // The API's vocabulary without the HTTP stack: request bodies, field rules, the error catalogue.
        // Fuzz/ builds it (FuzzRequestBodies) without Hummingbird or NIO.
        .target(name: "LatchkeyAPI", dependencies: ["WebAuthn"], swiftSettings: fuzzInstrumentation(testable: true)),
        // The layers under LatchkeyServer (docs/ARCHITECTURE.md §1). Each is a target so that an arrow the
        // wrong way does not compile: the runtime knows neither SQL nor HTTP, the database knows no account
        // and no route, and the transport (sockets, TLS, deadlines, connection limits) no route either.
        // What every server layer runs on: the event loops and the executor that pins tasks to one, the
        // error for a setting that cannot be used, spans, files that are their owner's alone.
        .target(
            name: "LatchkeyRuntime",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The storage engine: SQLite and PostgreSQL connections, statements, the group commit, backups.
        .target(
            name: "LatchkeyDatabase",
            dependencies: [
                "LatchkeyRuntime", "CSQLite3",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Below the router: sockets, TLS, HTTP/2, the head, body and handshake deadlines, connection limits.
        .target(
            name: "LatchkeyTransport",
            dependencies: [
                "LatchkeyRuntime", "LatchkeyAPI",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "LatchkeyAPI", "LatchkeyRuntime", "LatchkeyDatabase", "LatchkeyTransport", "WebAuthn", "CBOR", "CSQLite3",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // --tls-cert: HTTPS with HTTP/2 by ALPN (HummingbirdHTTP2's channels over swift-nio-ssl,
                // both already resolved through Hummingbird and async-http-client).
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Public"), .copy("ProviderData")]
        ),
        .target(
            name: "LatchkeyClient",
            dependencies: [
                "WebAuthn", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // LatchkeyClient's Authenticator over AuthenticationServices (compiled where that framework exists);
        // its JSON mapping is plain Swift, built and tested everywhere.
        .target(name: "LatchkeyAppleAuthenticator", dependencies: ["LatchkeyClient", "WebAuthn"]),
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "WebAuthn", "SoftAuthenticator", "LatchkeyServer", "LatchkeyDatabase", "LatchkeyRuntime", "LatchkeyClient", "LatchkeyBuildInfo", "QRCode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // `serve`'s exporter only: embedders bootstrap their own tracer, and LatchkeyServer needs the API alone.
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // An application that embeds Latchkey (docs/api.md: "Add passkeys to a Hummingbird app").
        .executableTarget(
            name: "EmbeddedApp",
            dependencies: [
                "LatchkeyServer", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Examples/EmbeddedApp"
        ),
        // Release-mode benchmark, run by hand (`swift run -c release latchkey-bench`), never by the tests.
        .executableTarget(
            name: "latchkey-bench",
            dependencies: ["WebAuthn", "CBOR", .product(name: "Crypto", package: "swift-crypto")],
            path: "Benchmarks/VerificationBenchmark"
        ),
        // The counts gate's workloads (scripts/counts, run under valgrind by scripts/test's `counts` stage):
        // built in debug with the rest, so that the gate costs no build of its own.
        .executableTarget(
            name: "latchkey-counts",
            dependencies: [
                "LatchkeyServer", "SoftAuthenticator", "WebAuthn", "CBOR",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/Counts"
        ),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode"], exclude: ["make-fixtures.py", "fixtures.json"]),
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
            dependencies: [
                "SoftAuthenticator", "WebAuthn", "CBOR", .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer", "LatchkeyDatabase", "LatchkeyRuntime", "LatchkeyTransport", "LatchkeyAPI", "SoftAuthenticator", "WebAuthn",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // The mail tests' relay speaks STARTTLS with a certificate made at test time.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "LatchkeyClientTests",
            dependencies: [
                "LatchkeyClient", "LatchkeyServer", "SoftAuthenticator", "WebAuthn",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LatchkeyAppleAuthenticatorTests",
            dependencies: ["LatchkeyAppleAuthenticator", "LatchkeyClient", "SoftAuthenticator", "WebAuthn"]
        ),
        .testTarget(
            name: "LatchkeyCLITests",
            dependencies: ["latchkey", "WebAuthn", "LatchkeyServer", "LatchkeyDatabase", .product(name: "Logging", package: "swift-log"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "EmbeddedAppTests",
            dependencies: [
                "EmbeddedApp", "LatchkeyServer", "SoftAuthenticator", "WebAuthn",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `strict` for every target, the ones added later included (a system library has no Swift settings).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strict
}
