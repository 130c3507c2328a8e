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
    var account: RecoveryAccountJSON? = nil
}

/// A pending request as the signed-in person sees it before approving: which browser, from where, when.
struct DeviceRequestJSON: NullKeepingBody {
    let id: String
    let device: String?
    let userAgent: String?
    let clientAddress: String?
    let createdAt: Date
    let expiresAt: Date

    init(_ request: Store.DeviceRequestRecord) {
        id = request.id
        device = UserAgentSummary.describe(request.userAgent)
        userAgent = request.userAgent
        clientAddress = request.clientAddress
        createdAt = request.createdAt
        expiresAt = request.expiresAt
    }
}
