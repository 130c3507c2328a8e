import FuzzSupport
import WebAuthn

/// `CollectedClientData` on arbitrary bytes (§5.8.1), and what a successful parse promises: the raw
/// bytes are kept exactly (the signature covers them), and each member read is the member the strict
/// JSON parser sees in the same document (the last one, when a key repeats).
enum ClientDataFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard let clientData = try? CollectedClientData(bytes: bytes) else { return }
        fuzzCheck(clientData.rawBytes == bytes, "rawBytes differ from the input")
        guard case .object(let members)? = try? JSONValue.parse(bytes) else {
            fuzzCheck(false, "client data parsed, but the document is not a JSON object")
            return
        }
        fuzzCheck(members["type"] == .string(clientData.type), "type differs from the document's")
        fuzzCheck(members["challenge"] == .string(clientData.challenge), "challenge differs from the document's")
        fuzzCheck(members["origin"] == .string(clientData.origin), "origin differs from the document's")
        if let crossOrigin = clientData.crossOrigin {
            fuzzCheck(members["crossOrigin"] == .bool(crossOrigin), "crossOrigin differs from the document's")
        }
        if let topOrigin = clientData.topOrigin {
            fuzzCheck(members["topOrigin"] == .string(topOrigin), "topOrigin differs from the document's")
        }
    }
}
