import Foundation
import Hummingbird
import LatchkeyAPI
import WebAuthn

/// `PUT /api/account/language`: the page tells the server the language the person reads it in, once
/// per page load that shows the account, so that the account's mails are written in it.
struct AccountLanguageController: Sendable {
    let catalogues: Catalogues
    let accounts: AccountService

    func routes<Context: LatchkeyRequestContext>(signedIn: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self).add(middleware: signedIn)
        routes.put("account/language") { request, context in
            let body = try await RequestBody.decode(AccountLanguageRequest.self, from: request)
            let caller = try context.signedInCaller()
            guard body.language.count <= AcceptLanguage.maximumRangeLength,
                  let code = catalogues.codes.first(where: { $0.lowercased() == body.language.lowercased() })
            else {
                throw APIError(.invalidField, "language must be one of the shipped languages: \(catalogues.codes.joined(separator: ", ")).")
            }
            try await accounts.setLanguage(code, accountId: caller.account.id)
            return Response(status: .noContent)
        }
        return routes
    }
}

/// The body of `PUT /api/account/language`: `{"language": "de"}`.
struct AccountLanguageRequest: JSONReadable, Sendable {
    let language: String

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        language = try reader.string("language")
    }
}
