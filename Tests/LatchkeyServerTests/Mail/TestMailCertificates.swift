import Crypto
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// A private CA and a relay's certificate it signed, made at test time (nothing secret is committed): the
/// relay's certificate names its IP address, which is what TLS checks when the SMTP URL names an address.
/// `caFile` is the CA as a PEM file, what an operator gives with `--smtp-ca-file`.
struct TestMailCertificates {
    let certificatePEM: String
    let privateKeyPEM: String
    let caFile: String
    let directory: URL

    init(ipAddress: SocketAddress) throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey(), relayKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Latchkey test mail CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 300, notValidAfter: now + 3600, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let relay = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(relayKey.publicKey),
            notValidBefore: now - 300, notValidAfter: now + 3600, issuer: caName,
            subject: try DistinguishedName { CommonName("Latchkey test relay") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: ArraySlice(try Self.bytes(of: ipAddress))))])
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: .init(caKey))
        certificatePEM = try relay.serializeAsPEM().pemString
        privateKeyPEM = relayKey.pemRepresentation
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        caFile = directory.appendingPathComponent("ca.pem").path
        try Data(try ca.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: caFile))
    }

    /// The relay's side: its certificate and key.
    func relayTLS() throws -> NIOSSLContext {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)))
        return try NIOSSLContext(configuration: configuration)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    struct NotAnIPAddress: Error {}

    /// The address's 4 or 16 bytes, as a certificate's iPAddress name holds them.
    private static func bytes(of address: SocketAddress) throws -> [UInt8] {
        switch address {
        case .v4(let v4): withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6): withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default: throw NotAnIPAddress()
        }
    }
}
