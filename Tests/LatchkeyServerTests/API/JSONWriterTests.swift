import Foundation
import LatchkeyAPI
import Testing
import WebAuthn
@testable import LatchkeyServer

/// The hand-written bodies must be exactly what the API's JSONEncoder writes for the same values, so
/// that clients cannot tell which one answered.
@Suite("Hand-written JSON bodies")
struct JSONWriterTests {
    /// Every ASCII character (all control characters among them), quotes, backslashes, slashes and
    /// characters outside ASCII, from the BMP and beyond.
    static let awkward = String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) }) + "\"\\/é€𝄞\u{2028}\u{FEFF}"

    func expectSame(_ value: some Encodable & JSONWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try JSONResponse.encoder.encode(value)
        let written = JSONWriter.encode(value)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), sourceLocation: sourceLocation)
        #expect(Array(expected) == written, sourceLocation: sourceLocation)
    }

    @Test("login options, with every member present and with the optional ones absent")
    func requestOptions() throws {
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialRequestOptionsJSON(
            challenge: "q83vEjRWeJA", timeout: 300_000, rpId: "example.com", allowCredentials: [], userVerification: "required")))
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialRequestOptionsJSON(challenge: "AA")))
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialRequestOptionsJSON(
            challenge: Self.awkward, timeout: -1, rpId: Self.awkward,
            allowCredentials: [CredentialDescriptorJSON(id: "AQID"), CredentialDescriptorJSON(id: "BAUG", transports: ["usb", "nfc", Self.awkward])],
            userVerification: "preferred", hints: ["security-key", Self.awkward], extensions: ExtensionInputsJSON(credProps: true))))
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialRequestOptionsJSON(
            challenge: "", allowCredentials: [CredentialDescriptorJSON(id: "", type: "x", transports: [])], hints: [],
            extensions: ExtensionInputsJSON())))
    }

    @Test("login options with hints and the prf extension: eval, evalByCredential (keys in order), both, neither")
    func prfOptions() throws {
        let salts = PRFValuesJSON(first: "c2FsdA", second: Self.awkward)
        for prf in [
            PRFInputsJSON(eval: PRFValuesJSON(first: "c2FsdA")),
            PRFInputsJSON(evalByCredential: ["zz": salts, "AA": PRFValuesJSON(first: "x"), "_-": salts, Self.awkward: salts]),
            PRFInputsJSON(eval: salts, evalByCredential: [:]),
            PRFInputsJSON(),
        ] {
            try expectSame(OptionsResponse(publicKey: PublicKeyCredentialRequestOptionsJSON(
                challenge: "q83vEjRWeJA", timeout: 300_000, rpId: "example.com", allowCredentials: [], userVerification: "required",
                hints: ["client-device", "hybrid"], extensions: ExtensionInputsJSON(prf: prf))))
            try expectSame(OptionsResponse(publicKey: PublicKeyCredentialRequestOptionsJSON(
                challenge: "AA", extensions: ExtensionInputsJSON(credProps: false, prf: prf))))
        }
    }

    @Test("registration options, with every member present, with the optional ones absent, and with awkward strings")
    func creationOptions() throws {
        let user = UserEntityJSON(id: "AAEC_-8", name: "ada", displayName: "Ada")
        let parameters = [CredentialParametersJSON(alg: -7), CredentialParametersJSON(alg: -257), CredentialParametersJSON(type: Self.awkward, alg: 0)]
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialCreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: "example.com", name: "Example"), user: user, challenge: "q83vEjRWeJA",
            pubKeyCredParams: parameters, timeout: 300_000,
            excludeCredentials: [CredentialDescriptorJSON(id: "AQID", transports: ["internal", "hybrid"]), CredentialDescriptorJSON(id: "BAUG")],
            authenticatorSelection: AuthenticatorSelectionJSON(
                authenticatorAttachment: "platform", residentKey: "required", requireResidentKey: true, userVerification: "required"),
            hints: ["client-device"], attestation: "direct", attestationFormats: ["packed", "tpm"],
            extensions: ExtensionInputsJSON(credProps: true, prf: PRFInputsJSON(eval: PRFValuesJSON(first: "c2FsdA"))))))
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialCreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: nil, name: ""), user: user, challenge: "AA", pubKeyCredParams: [])))
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialCreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: Self.awkward, name: Self.awkward),
            user: UserEntityJSON(id: Self.awkward, name: Self.awkward, displayName: Self.awkward), challenge: Self.awkward,
            pubKeyCredParams: parameters, timeout: -1, excludeCredentials: [], authenticatorSelection: AuthenticatorSelectionJSON(),
            hints: [], attestation: Self.awkward, attestationFormats: [], extensions: ExtensionInputsJSON())))
        try expectSame(OptionsResponse(publicKey: PublicKeyCredentialCreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: "localhost", name: "Latchkey"), user: user, challenge: "AA", pubKeyCredParams: parameters,
            authenticatorSelection: AuthenticatorSelectionJSON(residentKey: "preferred", requireResidentKey: false))))
    }

    @Test("a session with the PRF outputs a login handed back, one or two")
    func sessionWithPRF() throws {
        let account = AccountRecord(id: "1f0e", userHandle: [1], displayName: "Ada", credo: "", createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date())
        try expectSame(SessionResponse(token: "t", account: AccountJSON(account), prf: PRFValuesJSON(first: "Zmlyc3Q")))
        try expectSame(SessionResponse(token: "t", account: AccountJSON(account), prf: PRFValuesJSON(first: "Zmlyc3Q", second: Self.awkward)))
    }

    @Test("session and account, for dates on whole and fractional seconds, before and after 1970")
    func session() throws {
        for seconds in [0, 1_763_712_000, 1_763_712_000.999, 1_763_712_059.5, 4_102_444_799.9, -86_400.25, 951_782_400] as [TimeInterval] {
            let account = AccountRecord(
                id: "1f0e", userHandle: [0, 1, 254, 255], displayName: Self.awkward, credo: "", createdAt: Date(timeIntervalSince1970: seconds),
                updatedAt: Date())
            try expectSame(SessionResponse(token: "tok_-en", account: AccountJSON(account)))
        }
    }

    /// Integers as the writer puts them digit by digit (no `String` in between): zero, powers of ten and
    /// their neighbours, negatives and both ends of `Int`.
    struct Numbers: Encodable, JSONWritable {
        let values: [Int]
        func write(to json: inout JSONWriter) {
            json.object { $0.member("values") { $0.array(values) { $0.int($1) } } }
        }
    }

    @Test("integers, from Int.min to Int.max")
    func integers() throws {
        try expectSame(Numbers(values: [0, 1, 9, 10, 11, 99, 100, 101, 999_999, 1_000_000, -1, -9, -10, -300_000, Int.max, Int.min, Int.max - 1, Int.min + 1]))
    }

    @Test("error bodies")
    func errors() throws {
        try expectSame(ErrorBody(error: .init(code: "unknown_challenge", message: "§7.2 step 9: \"x\" ≠ y/z \\ \n")))
        try expectSame(ErrorBody(error: .init(code: Self.awkward, message: Self.awkward)))
    }
}
