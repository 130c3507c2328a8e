import Foundation
import Testing
import WebAuthn

@Suite("JSON parser")
struct JSONValueTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    @Test("values of every kind, with whitespace, escapes and surrogate pairs")
    func accepted() throws {
        let document = try parse(" {\"a\" : [true, false, null, 0, -0.5e+3, 12E-2, \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud834\\udd1e\\u0000\"], \"b\":{}, \"c\":[]}\r\n")
        guard case .object(let top) = document else { Issue.record("not an object"); return }
        #expect(top["a"] == .array([
            .bool(true), .bool(false), .null, .number("0"), .number("-0.5e+3"), .number("12E-2"),
            .string("x\"\\/\u{08}\u{0C}\n\r\té𝄞\u{0}"),
        ]))
        #expect(top["b"] == .object(JSONObject([])))
        #expect(top["c"] == .array([]))
        #expect(try parse("\"é€𝄞 raw UTF-8\"") == .string("é€𝄞 raw UTF-8"))
        #expect(try parse("123456789012345678901234567890") == .number("123456789012345678901234567890"))
    }

    @Test("a repeated key: the last occurrence counts, as in JSON.parse")
    func duplicateKeys() throws {
        guard case .object(let object) = try parse(#"{"type":"webauthn.create","type":"webauthn.get"}"#) else { Issue.record("not an object"); return }
        #expect(object["type"] == .string("webauthn.get"))
        #expect(object.members.count == 2)
    }

    @Test("malformed documents are refused, with the byte offset", arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}", "[01]", "[1.]", "[.5]", "[-]", "[1e]", "[1e+]",
        "[+1]", "[NaN]", "[Infinity]", "[tru]", "[nul]", "\"abc", "\"a\u{01}b\"", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"",
        "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\"", "{} {}", "[1] x", "\u{FEFF}{}", "[1,,2]", "{\"a\":}",
    ])
    func refused(text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test("invalid UTF-8 inside a string is refused, escaped or not")
    func invalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse([0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
    }

    @Test("nesting is limited, so a hostile document cannot exhaust the stack")
    func depth() throws {
        _ = try parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) }
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "{\"a\":", count: 100_000)) }
    }

    @Test("agrees with Foundation's JSONSerialization on what a document holds")
    func agreesWithFoundation() throws {
        let documents = [
            #"{"type":"webauthn.get","challenge":"AAA","origin":"https://example.com","crossOrigin":false,"other_keys_can_be_added_here":"do not compare clientDataJSON against a template. See https://goo.gl/yabPex"}"#,
            #"[1, -2.5, 3e2, "a\u00e9\n", [[]], {"x": {"y": null}}]"#,
        ]
        for text in documents {
            let ours = try parse(text)
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            #expect(Self.equal(ours, theirs), "\(text)")
        }
    }

    private static func equal(_ value: JSONValue, _ other: Any) -> Bool {
        switch value {
        case .null: return other is NSNull
        case .bool(let flag): return (other as? Bool) == flag
        case .number(let literal): return (other as? NSNumber)?.doubleValue == Double(literal)
        case .string(let text): return (other as? String) == text
        case .array(let elements):
            guard let others = other as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { equal($0, $1) }
        case .object(let object):
            guard let others = other as? [String: Any], others.count == object.members.count else { return false }
            return object.members.allSatisfy { member in others[member.key].map { equal(member.value, $0) } ?? false }
        }
    }

    @Test("any single-byte change of a real client data document parses or is refused, never crashes")
    func mutations() throws {
        let original = Array(#"{"type":"webauthn.get","challenge":"q83vEjRWeJA","origin":"https://example.com","crossOrigin":false,"tokenBinding":{"status":"present","id":"AQ"}}"#.utf8)
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for index in original.indices {
            for _ in 0..<8 {
                var mutated = original
                mutated[index] = UInt8.random(in: 0...255, using: &generator)
                do { _ = try JSONValue.parse(mutated) } catch { refused += 1 }
            }
        }
        #expect(refused > 0)
    }

    @Test("every authentication response in the shared vectors reads the same through the parser as through JSONDecoder")
    func authenticationResponsesAgree() throws {
        let responses = SharedVectors.all.filter { $0["ceremony"] as? String == "authentication" }.compactMap { $0["credential"] as? [String: Any] }
        #expect(responses.count >= 50)
        for response in responses {
            let data = try JSONSerialization.data(withJSONObject: response)
            let decoded = try JSONDecoder().decode(AuthenticationResponseJSON.self, from: data)
            let read = try AuthenticationResponseJSON(json: JSONShapeReader(JSONValue.parse(data)))
            #expect(read == decoded)
        }
    }

    @Test("missing, mistyped and null members are named by their path")
    func shapeErrors() throws {
        func failure(_ text: String) -> JSONShapeError? {
            do {
                _ = try AuthenticationResponseJSON(json: JSONShapeReader(JSONValue.parse(Array(text.utf8))))
                return nil
            } catch let error as JSONShapeError {
                return error
            } catch {
                return nil
            }
        }
        let response = #""response":{"clientDataJSON":"AA","authenticatorData":"AA","signature":"AA"}"#
        #expect(failure(#"{"id":"A","rawId":"A","type":"public-key",\#(response)}"#) == nil)
        #expect(failure(#"{"id":"A","type":"public-key",\#(response)}"#) == JSONShapeError(.missing, at: ["rawId"]))
        #expect(failure(#"{"id":"A","rawId":7,"type":"public-key",\#(response)}"#) == JSONShapeError(.wrongType, at: ["rawId"]))
        #expect(failure(#"{"id":"A","rawId":null,"type":"public-key",\#(response)}"#) == JSONShapeError(.null, at: ["rawId"]))
        #expect(failure(#"{"id":"A","rawId":"A","type":"public-key","response":{"clientDataJSON":"AA","authenticatorData":"AA"}}"#)
            == JSONShapeError(.missing, at: ["response", "signature"]))
        #expect(failure(#"{"id":"A","rawId":"A","type":"public-key","response":[]}"#) == JSONShapeError(.wrongType, at: ["response"]))
        #expect(failure(#"{"id":"A","rawId":"A","type":"public-key",\#(response),"clientExtensionResults":{"credProps":{"rk":1}}}"#)
            == JSONShapeError(.wrongType, at: ["clientExtensionResults", "credProps", "rk"]))
        #expect(failure(#"["not an object"]"#) == JSONShapeError(.wrongType, at: []))
        // Optional members may be absent or null; unknown members are ignored.
        #expect(failure(#"{"id":"A","rawId":"A","type":"public-key",\#(response),"authenticatorAttachment":null,"clientExtensionResults":null,"extra":[1]}"#) == nil)
    }
}
