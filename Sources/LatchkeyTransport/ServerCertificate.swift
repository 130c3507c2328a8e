import Foundation
import LatchkeyRuntime
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOSSL

/// The certificate `latchkey serve --tls-cert FILE --tls-key FILE` presents, held as the TLS context that
/// each new connection is set up with (`HTTPSChannel`).
///
/// swift-nio-ssl's `NIOSSLContext` cannot be changed once made, so a renewed certificate (Let's Encrypt's,
/// every 60 days) is a new context, swapped into this lock-protected box by `reload()` on SIGHUP
/// (`CertificateReloadService`): connections accepted after the swap get the new certificate, those
/// already open keep the one their handshake used, and nothing restarts. Files that cannot be used — a
/// key that does not match, a half-written file — make `reload()` throw and leave the current context in
/// place, so a bad renewal never takes the server down.
package final class ServerCertificate: Sendable {
    /// A usable certificate and key, as loaded.
    package struct Loaded: Sendable {
        package let context: NIOSSLContext
        /// The leaf certificate's serial number in hexadecimal, as `openssl x509 -noout -serial` prints it.
        package let serial: String
        /// When the leaf certificate expires.
        package let notAfter: Date
    }

    /// How long closing a connection waits for the client's close_notify before closing it anyway.
    package static let closeNotifyWait = TimeAmount.seconds(1)

    package let certificatePath: String
    package let keyPath: String
    private let current: NIOLockedValueBox<Loaded>

    package init(certificatePath: String, keyPath: String) throws(InvalidSetting) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.current = NIOLockedValueBox(try Self.load(certificatePath: certificatePath, keyPath: keyPath))
    }

    /// The context a connection accepted now is set up with.
    package var context: NIOSSLContext { current.withLockedValue { $0.context } }

    /// What is being presented now.
    package var loaded: Loaded { current.withLockedValue { $0 } }

    /// Reads the files again and, if they hold a usable certificate and key, presents them to every
    /// connection accepted from now on. Returns what was presented before and what is now; throws (and
    /// changes nothing) when the files cannot be used.
    @discardableResult
    package func reload() throws(InvalidSetting) -> (previous: Loaded, now: Loaded) {
        let fresh = try Self.load(certificatePath: certificatePath, keyPath: keyPath)
        let previous = current.withLockedValue { value in
            defer { value = fresh }
            return value
        }
        return (previous, fresh)
    }

    /// The TLS context for these files: TLS 1.2 or later, and ALPN offering HTTP/2 then HTTP/1.1.
    package static func load(certificatePath: String, keyPath: String) throws(InvalidSetting) -> Loaded {
        try checkFiles(certificate: certificatePath, key: keyPath)
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw .init(description: "the TLS certificate file \(certificatePath) holds no PEM certificate")
        }
        guard let leaf = chain.first else {
            throw .init(description: "the TLS certificate file \(certificatePath) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw .init(description: "the TLS key file \(keyPath) holds no unencrypted PEM private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = NIOHTTP2SupportedALPNProtocols
        // A close waits this long for the client's close_notify (NIOSSL's default is 5 s): a client that never
        // answers one otherwise adds 5 s to every connection's end, the server's stop included.
        configuration.shutdownTimeout = Self.closeNotifyWait
        let context: NIOSSLContext
        do {
            // BoringSSL checks here that the key is the certificate's.
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw .init(description: "the TLS key file \(keyPath) does not go with the certificate in \(certificatePath) (\(error))")
        }
        let serial = leaf.serialNumber.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        return Loaded(context: context, serial: serial, notAfter: Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter)))
    }

    /// Both files or neither; the certificate readable; the key readable, and by its owner only (as the
    /// key file's own rule, `KeyFile`: a private key others can read is no longer private).
    package static func checkFiles(certificate: String?, key: String?) throws(InvalidSetting) {
        switch (certificate, key) {
        case (nil, nil):
            return
        case (_?, nil):
            throw .init(description: "--tls-cert needs --tls-key, the file holding the certificate's private key")
        case (nil, _?):
            throw .init(description: "--tls-key needs --tls-cert, the file holding the certificate chain")
        case (let certificate?, let key?):
            guard FileManager.default.isReadableFile(atPath: certificate) else {
                throw .init(description: "the TLS certificate file \(certificate) cannot be read")
            }
            guard FileManager.default.isReadableFile(atPath: key) else {
                throw .init(description: "the TLS key file \(key) cannot be read")
            }
            if let refusal = OwnerOnlyFile.openToOthers("the TLS key file", at: key) { throw refusal }
        }
    }
}
