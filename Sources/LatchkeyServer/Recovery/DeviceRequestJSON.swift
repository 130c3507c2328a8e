import Foundation

/// `POST /api/device-requests`: what the new device shows (the code) and keeps (the id and secret).
struct DeviceRequestCreatedJSON: APIResponseBody {
    let id: String
    let code: String
    let secret: String
    let expiresAt: Date
    /// Seconds between polls.
    let pollInterval: Int
}

/// `POST /api/device-requests/{id}/poll`: `pending`, `approved` (with the restricted session, once),
/// `denied`, `expired`, or `used` (the session was given already).
struct DeviceRequestStatusJSON: APIResponseBody {
    let status: String
    var token: String? = nil
    var expiresAt: Date? = nil
    var account: DeviceAccountJSON? = nil
}

/// The account that let the new device in, as the new device shows it before adding its passkey there:
/// the display name the approver chose, and what they cannot choose — the username, the account id.
struct DeviceAccountJSON: APIResponseBody {
    let id: String
    let displayName: String
    var username: String? = nil
}

/// A pending request as the signed-in person sees it before approving: which browser, from where, when.
struct DeviceRequestJSON: NullKeepingBody {
    let id: String
    let device: String?
    let userAgent: String?
    let clientAddress: String?
    /// The username the new device named, if it named one (only that account sees the request).
    let forUsername: String?
    let createdAt: Date
    let expiresAt: Date

    init(_ request: DeviceRequestRecord) {
        id = request.id
        device = UserAgentSummary.describe(request.userAgent)
        userAgent = request.userAgent
        clientAddress = request.clientAddress
        forUsername = request.forUsername
        createdAt = request.createdAt
        expiresAt = request.expiresAt
    }
}
