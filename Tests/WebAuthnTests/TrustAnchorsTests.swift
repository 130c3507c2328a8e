import Foundation
import Testing
import X509
@testable import WebAuthn

@Suite("Trust anchors")
struct TrustAnchorsTests {
    @Test("a directory of PEM files: subdirectories anchor their format, top-level files every format")
    func loadDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-anchors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tpm"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let roots = try #require(SharedVectors.vector("yubico-reg-windows-hello-tpm")?["attestation_trust"] as? [String: Any])["roots_pem"] as? [String]
        let other = try #require(SharedVectors.vector("pywebauthn-reg-apple")?["attestation_trust"] as? [String: Any])["roots_pem"] as? [String]
        try #require(roots?.first).write(to: directory.appendingPathComponent("tpm/microsoft.pem"), atomically: true, encoding: .utf8)
        try #require(other?.first).write(to: directory.appendingPathComponent("apple.pem"), atomically: true, encoding: .utf8)
        try "not a certificate".write(to: directory.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)

        let anchors = try TrustAnchors.load(directory: directory)
        #expect(anchors.byFormat["tpm"]?.count == 1)
        #expect(anchors.byFormat[TrustAnchors.anyFormat]?.count == 1)
        #expect(anchors.roots(format: "tpm", aaguid: []).count == 2)
        #expect(anchors.roots(format: "packed", aaguid: []).count == 1)
    }

    @Test("a PEM file that is not a certificate is an error")
    func badPEM() throws {
        #expect(throws: (any Error).self) { try TrustAnchors.certificates(fromPEM: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") }
    }
}
