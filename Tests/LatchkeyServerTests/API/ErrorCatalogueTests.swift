import Foundation
import HTTPTypes
import LatchkeyAPI
import Testing
@testable import LatchkeyServer

/// The error codes the server can send (`ErrorCode`'s catalogue and WebAuthn's rules) against the codes
/// `openapi.yaml` documents: every documented code exists, every code of Latchkey's own API is
/// documented, and each is documented under the status the server sends it with (issue 28).
@Suite("Error catalogue")
struct ErrorCatalogueTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized

    /// The served document (`scripts/openapi-json` writes it from openapi.yaml; `OpenAPITests` holds them equal).
    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: repository.appendingPathComponent("Sources/LatchkeyServer/Public/openapi.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// WebAuthn's codes, read off the one switch that spells them (`WebAuthnError.Rule.code`).
    static func webAuthnCodes() throws -> Set<String> {
        let source = try String(contentsOf: repository.appendingPathComponent("Sources/WebAuthn/WebAuthnError.swift"), encoding: .utf8)
        let codes = source.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: "\"")
            guard line.contains("case ."), line.contains(": \""), parts.count >= 2 else { return nil }
            return String(parts[1])
        }
        return Set(codes)
    }

    /// The codes of an error schema, following `$ref`, `allOf` and `oneOf`.
    static func codes(in schema: Any?, _ document: [String: Any]) -> Set<String> {
        guard let schema = schema as? [String: Any] else { return [] }
        if let reference = schema["$ref"] as? String {
            let path = reference.dropFirst(2).split(separator: "/").map(String.init)
            var node: Any? = document
            for key in path { node = (node as? [String: Any])?[key] }
            return codes(in: node, document)
        }
        var found = Set<String>()
        if let code = (((schema["properties"] as? [String: Any])?["error"] as? [String: Any])?["properties"] as? [String: Any])?["code"]
            as? [String: Any] {
            if let value = code["const"] as? String { found.insert(value) }
            found.formUnion(code["enum"] as? [String] ?? [])
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for member in schema[key] as? [Any] ?? [] { found.formUnion(codes(in: member, document)) }
        }
        return found
    }

    /// (route, status, codes) for every documented error response with codes.
    static func documentedResponses() throws -> [(route: String, status: Int, codes: Set<String>)] {
        let document = try document()
        var found: [(String, Int, Set<String>)] = []
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in item as? [String: Any] ?? [:] {
                for (status, response) in (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:] {
                    var response = response as? [String: Any] ?? [:]
                    if let reference = response["$ref"] as? String {
                        let name = String(reference.split(separator: "/").last ?? "")
                        response = ((document["components"] as? [String: Any])?["responses"] as? [String: Any])?[name] as? [String: Any] ?? [:]
                    }
                    let schema = ((response["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]
                    let codes = codes(in: schema, document)
                    if let code = Int(status), !codes.isEmpty { found.append(("\(method.uppercased()) \(path)", code, codes)) }
                }
            }
        }
        return found
    }

    @Test("every code is in the catalogue once, and the catalogue lists every code ErrorCode.swift declares")
    func catalogueIsComplete() throws {
        let raw = ErrorCode.catalogue.map(\.rawValue)
        #expect(Set(raw).count == raw.count, "a code spelled twice: \(raw)")
        let source = try String(contentsOf: Self.repository.appendingPathComponent("Sources/LatchkeyAPI/ErrorCode.swift"), encoding: .utf8)
        let declared = source.components(separatedBy: "static let ").dropFirst().filter { $0.contains("= ErrorCode(\"") }.count
        #expect(declared == ErrorCode.catalogue.count, "declared \(declared), listed \(ErrorCode.catalogue.count)")
    }

    @Test("openapi.yaml documents exactly the codes the server can send, each under the status it is sent with")
    func documentMatchesCatalogue() throws {
        let webAuthn = try Self.webAuthnCodes()
        #expect(webAuthn.count >= 30, "WebAuthn's codes were not found: \(webAuthn)")
        let responses = try Self.documentedResponses()
        let documented = responses.reduce(into: Set<String>()) { $0.formUnion($1.codes) }
        let catalogue = Dictionary(ErrorCode.catalogue.map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        // Every documented code can be sent.
        for code in documented {
            #expect(catalogue[code] != nil || webAuthn.contains(code), "openapi.yaml documents \(code), which nothing sends")
        }
        // Every code of Latchkey's own API is documented — but two that no route's description can name:
        // 405 for a method a path does not take, and 500 for the server's own fault.
        let undocumentable: Set<String> = [ErrorCode.methodNotAllowed.rawValue, ErrorCode.internalError.rawValue]
        for code in ErrorCode.catalogue where !code.compatibilityOnly && !undocumentable.contains(code.rawValue) {
            #expect(documented.contains(code.rawValue), "\(code) is sent but openapi.yaml documents it nowhere")
        }
        // Each documented code is documented under its status (WebAuthn's are all 401).
        for (route, status, codes) in responses {
            for code in codes {
                if webAuthn.contains(code), status == 401 {
                    continue // a WebAuthn rule's code (origin_not_allowed is both: §7.1 step 9, and the cookie's 403)
                } else if let entry = catalogue[code], !entry.compatibilityOnly {
                    #expect(APIError(entry, "").status.code == status, "\(route): \(code) is documented under \(status), sent as \(APIError(entry, "").status.code)")
                } else if webAuthn.contains(code), catalogue[code] == nil {
                    #expect(status == 401, "\(route): WebAuthn's \(code) is documented under \(status), sent as 401")
                }
            }
        }
    }
}
