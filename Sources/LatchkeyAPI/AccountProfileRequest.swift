import WebAuthn

/// `PATCH /api/admin/accounts/{id}`: what apps may learn about the person. Null removes a username or
/// an email (and its verification); `groups: null` or `[]` takes the account out of every group.
package struct AccountProfileRequest: JSONReadable, Sendable, Equatable {
    package var username: FieldChange<String> = .keep
    package var email: FieldChange<String> = .keep
    package var emailVerified: Bool?
    package var groups: FieldChange<[String]> = .keep

    package init(username: FieldChange<String> = .keep, email: FieldChange<String> = .keep, emailVerified: Bool? = nil, groups: FieldChange<[String]> = .keep) {
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.groups = groups
    }

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        username = try reader.stringChange("username")
        email = try reader.stringChange("email")
        emailVerified = try reader.optionalBool("emailVerified")
        groups = try reader.stringArrayChange("groups")
    }

    package var isEmpty: Bool { username.isKept && email.isKept && emailVerified == nil && groups.isKept }
}
