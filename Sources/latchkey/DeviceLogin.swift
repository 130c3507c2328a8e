import AsyncHTTPClient
import Foundation
import LatchkeyClient
import NIOCore
import NIOHTTP1
import QRCode
import WebAuthn

/// `latchkey login --device`: the device authorization grant (RFC 8628) from a terminal with no
/// authenticator — a server over SSH, a container. It asks `/oidc/device` for a code as the OpenID Connect
/// client `clientId` (a public client an operator allowed `device_code`; or a confidential one with
/// `secret`), prints where to go and the code, and polls `/oidc/token` at the interval the server sets
/// (5 seconds more at each `slow_down`) until the person allowed it on their phone, refused, or the code
/// expired. The endpoints are taken under `server` (the discovery document names the issuer's addresses,
/// which a terminal inside the network may not reach); the address shown to the person is the server's
/// `verification_uri_complete`, for their phone.
struct DeviceLogin {
    let server: URL
    let clientId: String
    let secret: String?
    let scope: String
    let http: HTTPClient
    /// Where the instructions go (stderr with `--json`, so stdout stays one JSON document).
    let tell: (String) -> Void
    /// Whether to draw `verification_uri_complete` as a QR code too (RFC 8628 §3.3.1: a phone's camera
    /// opens it, the code already in it), in the terminal's text with black on white.
    var drawQRCode = false

    /// What a finished sign-in gives: the token response, and who signed in (from the id_token, which
    /// came straight from the token endpoint over the connection this command opened: Core §3.1.3.7).
    struct Signed {
        let tokens: [String: Any]
        let subject: String
        let name: String?
    }

    func run() async throws -> Signed {
        let started = try await post("/oidc/device", ["scope": scope])
        guard started.status == 200, let deviceCode = started.json["device_code"] as? String,
              let userCode = started.json["user_code"] as? String, let uri = started.json["verification_uri"] as? String
        else { throw Self.refusal(started, what: "the device authorization") }
        let complete = started.json["verification_uri_complete"] as? String ?? uri
        // Both come from the server: kept to what RFC 8628's servers use (seconds between polls, a code's life),
        // so that `interval += 5` cannot overflow.
        var interval = min(max(1, started.json["interval"] as? Int ?? 5), 300)
        let deadline = Date().addingTimeInterval(TimeInterval(min(max(1, started.json["expires_in"] as? Int ?? 600), 86_400)))
        tell("To sign in, open \(complete) on your phone or computer,")
        tell("or go to \(uri) and type the code \(userCode).")
        // An address longer than a version-10 symbol holds is only printed: the server's addresses are short.
        if drawQRCode, let code = try? QRCode(complete) {
            tell("Or scan this with your phone's camera:")
            code.terminalLines().forEach(tell)
        }
        tell("Waiting for you to allow it…")
        while Date() < deadline {
            try await Task.sleep(for: .seconds(interval))
            let polled = try await post("/oidc/token", ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": deviceCode])
            if polled.status == 200 {
                guard let idToken = polled.json["id_token"] as? String, let claims = Self.payload(of: idToken), let subject = claims["sub"] as? String else {
                    throw ClientError.invalidResponse("the token response has no id_token naming the account")
                }
                return Signed(tokens: polled.json, subject: subject, name: claims["name"] as? String)
            }
            switch polled.json["error"] as? String {
            case "authorization_pending": continue
            case "slow_down": interval += 5
            case "access_denied": throw ClientError.refused(status: polled.status, code: "access_denied", message: "the sign-in was not allowed")
            case "expired_token": throw ClientError.refused(status: polled.status, code: "expired_token", message: "the code expired; run the command again")
            default: throw Self.refusal(polled, what: "the token request")
            }
        }
        throw ClientError.refused(status: 400, code: "expired_token", message: "the code expired; run the command again")
    }

    private struct Reply {
        let status: Int
        let json: [String: Any]
    }

    /// A form POST under `server`, authenticated as the client (Basic with a secret, else `client_id`).
    private func post(_ path: String, _ parameters: [String: String]) async throws -> Reply {
        var form = parameters
        var request = HTTPClientRequest(url: server.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if let secret {
            let pair = Self.escape(clientId) + ":" + Self.escape(secret)
            request.headers.add(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString())
        } else {
            form["client_id"] = clientId
        }
        let body = form.sorted { $0.key < $1.key }.map { Self.escape($0.key) + "=" + Self.escape($0.value) }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        let status: Int
        let data: Data
        do {
            let response = try await http.execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        } catch {
            throw ClientError.unreachable("\(server.absoluteString): \(error)")
        }
        // The server's bytes pass the strict parser's depth gate before Foundation's scanner sees them.
        guard (try? JSONValue.validate(data)) != nil, let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ClientError.invalidResponse("POST \(path) answered \(status) without JSON")
        }
        return Reply(status: status, json: json)
    }

    private static func refusal(_ reply: Reply, what: String) -> ClientError {
        let code = reply.json["error"] as? String ?? "unknown"
        let description = reply.json["error_description"] as? String ?? "\(what) failed with status \(reply.status)"
        return .refused(status: reply.status, code: code, message: description)
    }

    /// A JWT's payload as JSON (its signature is the token endpoint's TLS connection's to vouch for).
    static func payload(of jwt: String) -> [String: Any]? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])) else { return nil }
        guard (try? JSONValue.validate(bytes)) != nil else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// application/x-www-form-urlencoded (RFC 6749 Appendix B): all but unreserved characters escaped.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }
}
