import Foundation
import WebAuthn

/// The attestation roots the verifier targets validate chains against: the shared vectors' roots, which
/// `Fuzz/make-seeds.py` writes as a `TrustAnchors.load` directory and `scripts/fuzz` names in
/// `LATCHKEY_FUZZ_ANCHORS`. Without it chains are reported as unanchored and path validation is not
/// reached, so the targets still run, only shallower.
public enum FuzzAnchors {
    public static let loaded: TrustAnchors = {
        guard let path = ProcessInfo.processInfo.environment["LATCHKEY_FUZZ_ANCHORS"], !path.isEmpty else { return TrustAnchors() }
        do {
            return try TrustAnchors.load(directory: URL(fileURLWithPath: path))
        } catch {
            FileHandle.standardError.write(Data("LATCHKEY_FUZZ_ANCHORS=\(path) could not be loaded: \(error)\n".utf8))
            exit(2)
        }
    }()
}
