import WebAuthn

/// The invitations' request bodies (issue 43): an operator's invitation and account, and the code a person
/// brings.

/// `POST /api/admin/invites`: who the invitation is for (every field optional), how long it lives and how
/// many accounts it may make; `send` mails its link to `email`.
package struct InvitationCreateRequest: JSONReadable, Sendable {
    package var username: String?
    package var email: String?
    package var groups: [String]?
    package var ttlSeconds: Int?
    package var uses: Int?
    package var send: Bool?
    /// The language of the mailed link (a shipped language's code), for a person who has no account to
    /// have one yet; the server's `--default-language` when absent.
    package var language: String?

    package init(
        username: String? = nil, email: String? = nil, groups: [String]? = nil, ttlSeconds: Int? = nil, uses: Int? = nil, send: Bool? = nil,
        language: String? = nil
    ) {
        self.username = username
        self.email = email
        self.groups = groups
        self.ttlSeconds = ttlSeconds
        self.uses = uses
        self.send = send
        self.language = language
    }

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        username = try reader.optionalString("username")
        email = try reader.optionalString("email")
        groups = try reader.optionalStringArray("groups")
        ttlSeconds = try reader.optionalInt("ttlSeconds")
        uses = try reader.optionalInt("uses")
        send = try reader.optionalBool("send")
        language = try reader.optionalString("language")
    }
}

/// `POST /api/admin/accounts`: an account without a passkey — its display name (the username's when
/// absent), and the rest as an invitation's, whose username it must have.
package struct AccountCreateRequest: JSONReadable, Sendable {
    package var displayName: String?
    package var invitation: InvitationCreateRequest

    package init(displayName: String?, invitation: InvitationCreateRequest) {
        self.displayName = displayName
        self.invitation = invitation
    }

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        invitation = try InvitationCreateRequest(json: reader)
    }
}

/// `POST /api/invites/preview` and `/api/invites/exchange`: the code a link carried, and for the exchange
/// the name the person wants to be greeted by (when the invitation makes a new account).
package struct InvitationCodeRequest: JSONReadable, Sendable {
    package let code: String
    package var displayName: String?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        code = try reader.string("code")
        displayName = try reader.optionalString("displayName")
    }
}
