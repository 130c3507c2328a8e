import Foundation
@testable import LatchkeyTransport
import Testing
@testable import LatchkeyServer

/// `--tls-cert` and `--tls-key` in the configuration: both or neither, files that can be read, a key only
/// its owner can; and HTTPS of its own makes the session cookie Secure whatever the origin says. Reading real
/// certificates (and the server over TLS) is Tests/System/Operations/test_tls.py's.
@Suite("TLS settings")
struct TLSSettingsTests {
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func file(_ name: String, in directory: URL, mode: Int) throws -> String {
        let path = directory.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("-----BEGIN-----\n".utf8), attributes: [.posixPermissions: mode]))
        return path
    }

    static func refusal(certificate: String?, key: String?) -> String? {
        var configuration = TestServer.configuration()
        configuration.tlsCertificateFile = certificate
        configuration.tlsKeyFile = key
        do {
            try configuration.validate()
            return nil
        } catch {
            return error.description
        }
    }

    @Test("both files or neither; each readable; the key its owner's alone, as the key file's rule")
    func files() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try Self.file("fullchain.pem", in: directory, mode: 0o644)
        let key = try Self.file("privkey.pem", in: directory, mode: 0o600)
        let openKey = try Self.file("open.pem", in: directory, mode: 0o640)
        let missing = directory.appendingPathComponent("missing.pem").path
        #expect(Self.refusal(certificate: nil, key: nil) == nil)
        #expect(Self.refusal(certificate: certificate, key: key) == nil, "readable files pass; their contents are read at start-up")
        #expect(Self.refusal(certificate: certificate, key: nil) == "--tls-cert needs --tls-key, the file holding the certificate's private key")
        #expect(Self.refusal(certificate: nil, key: key) == "--tls-key needs --tls-cert, the file holding the certificate chain")
        #expect(Self.refusal(certificate: missing, key: key) == "the TLS certificate file \(missing) cannot be read")
        #expect(Self.refusal(certificate: certificate, key: missing) == "the TLS key file \(missing) cannot be read")
        #expect(Self.refusal(certificate: certificate, key: openKey) == "the TLS key file \(openKey) is readable by others (mode 640); chmod 600 it")
    }

    @Test("serving TLS itself makes the session cookie Secure (__Host-), whatever the first origin's scheme")
    func secureCookies() {
        var configuration = TestServer.configuration()
        configuration.origins = ["http://localhost:8080"]
        #expect(!configuration.secureCookies)
        #expect(configuration.listeningScheme == "http")
        configuration.tlsCertificateFile = "fullchain.pem"
        configuration.tlsKeyFile = "privkey.pem"
        #expect(configuration.servesTLS)
        #expect(configuration.secureCookies)
        #expect(configuration.listeningScheme == "https")
        configuration.tlsCertificateFile = nil
        configuration.origins = ["https://login.example.com"]
        #expect(configuration.secureCookies, "TLS at a proxy in front, as before")
    }

    @Test("files without a PEM certificate are refused with a sentence that names them")
    func contents() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try Self.file("fullchain.pem", in: directory, mode: 0o644)
        let key = try Self.file("privkey.pem", in: directory, mode: 0o600)
        let refusal = #expect(throws: ServerConfiguration.Invalid.self) { try ServerCertificate(certificatePath: certificate, keyPath: key) }
        #expect(refusal?.description == "the TLS certificate file \(certificate) holds no PEM certificate")
    }
}
