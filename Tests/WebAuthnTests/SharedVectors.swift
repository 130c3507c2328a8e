import Foundation

/// The shared WebAuthn vectors (../shared/vectors/webauthn-vectors.json, or $LATCHKEY_VECTORS).
/// A missing file is not a reason to skip: `VectorTests.vectorFileIsPresent` fails the run.
enum SharedVectors {
    static let url: URL = {
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_VECTORS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        // Tests/WebAuthnTests/SharedVectors.swift → package root → ../shared/vectors
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/vectors/webauthn-vectors.json")
    }()

    // Immutable once loaded; `Any` only keeps it from being provably Sendable.
    nonisolated(unsafe) static let all: [[String: Any]] = {
        guard let data = try? Data(contentsOf: url),
              let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let vectors = top["vectors"] as? [[String: Any]]
        else { return [] }
        return vectors
    }()

    static let ids: [String] = all.compactMap { $0["id"] as? String }

    static func vector(_ id: String) -> [String: Any]? {
        all.first { $0["id"] as? String == id }
    }
}
