import HTTPTypes
import Hummingbird
import LatchkeyAPI
import WebAuthn

/// The person's side of invitations, in the rate-limited `/api` group: `GET /api/signup` (the policy, for
/// the page), `POST /api/signup/email` (a link mailed to an address at a `--signup-domain`), `POST
/// /api/invites/preview` (who an invitation is for) and `POST /api/invites/exchange` (a use: the account's
/// restricted session). Each invitation also counts its wrong codes.
struct InvitationController: Sendable {
    let invitations: InvitationService
    let trustForwardedFor: Bool

    func routes<Context: LatchkeyRequestContext>() -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        let configuration = invitations.configuration
        routes.get("signup") { _, _ in
            SignUpJSON(policy: configuration.effectiveSignUp.rawValue, service: configuration.rpName, domains: configuration.signUpDomains)
        }
        routes.post("signup/email") { request, context in
            let body = try await RequestBody.decode(SignUpEmailRequest.self, from: request)
            let origin = AuditOrigin(request, context: context, actor: "anonymous", trustForwardedFor: trustForwardedFor)
            // No account yet: the mail speaks the language the person reads the page in — the picker's
            // choice the page sends, else the browser's Accept-Language — else --default-language.
            let language = Catalogues.shipped?.negotiate(
                choice: body.language, acceptLanguage: request.headers[.acceptLanguage], fallback: configuration.defaultLanguage)
            try await invitations.requestSignUp(email: body.email, language: language, origin: origin)
            return APIReply(status: .accepted, body: SignUpEmailJSON())
        }
        routes.post("invites/preview") { request, _ in
            try await invitations.preview(code: try await RequestBody.decode(InvitationCodeRequest.self, from: request).code)
        }
        routes.post("invites/exchange") { request, context in
            let body = try await RequestBody.decode(InvitationCodeRequest.self, from: request)
            let origin = AuditOrigin(request, context: context, actor: "anonymous", trustForwardedFor: trustForwardedFor)
            return APIReply(status: .created, body: try await invitations.exchange(code: body.code, displayName: body.displayName, origin: origin))
        }
        return routes
    }
}

/// The body of `POST /api/signup/email`: the address, and the language the page is read in (its picker's
/// choice; one Latchkey does not ship is passed over for Accept-Language, as `GET /locale.json` does).
struct SignUpEmailRequest: JSONReadable, Sendable {
    let email: String
    let language: String?

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        email = try reader.string("email")
        language = try reader.optionalString("language")
    }
}
