import Foundation
import LatchkeyRuntime
import Logging
import ServiceLifecycle
import UnixSignals

/// Reads the TLS certificate and key again on SIGHUP (`ServerCertificate.reload()`), so that a renewed
/// certificate — certbot's deploy hook sends the signal — is presented to new connections without a
/// restart. One log line says what happened: the new serial and expiry, or why the files were refused and
/// that the old certificate is still presented.
///
/// The signal handler is installed when `buildApplication` makes the sequence, before the server
/// listens, so a SIGHUP that comes as soon as the server answers is not the default action (the process
/// would end). Only a server with `--tls-cert` traps SIGHUP.
package struct CertificateReloadService: Service {
    package let certificate: ServerCertificate
    package let signals: UnixSignalsSequence
    package let logger: Logger

    package init(certificate: ServerCertificate, signals: UnixSignalsSequence, logger: Logger) {
        self.certificate = certificate
        self.signals = signals
        self.logger = logger
    }

    package func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            reload()
        }
    }

    /// One reload and its log line.
    package func reload() {
        do throws(InvalidSetting) {
            let (previous, now) = try certificate.reload()
            logger.info("TLS certificate reloaded", metadata: [
                "serial": "\(now.serial)", "previous_serial": "\(previous.serial)",
                "not_after": "\(Self.timestamp(now.notAfter))", "file": "\(certificate.certificatePath)",
            ])
        } catch {
            let kept = certificate.loaded
            logger.error("TLS certificate not reloaded: \(error.description); still presenting serial \(kept.serial)", metadata: [
                "serial": "\(kept.serial)", "not_after": "\(Self.timestamp(kept.notAfter))", "file": "\(certificate.certificatePath)",
            ])
        }
    }

    package static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
