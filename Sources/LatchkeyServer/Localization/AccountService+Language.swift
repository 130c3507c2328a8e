import Foundation
import LatchkeyAPI

extension AccountService {
    /// Records the language the person reads the page in (a shipped one, checked by the controller).
    func setLanguage(_ language: String, accountId: String) async throws {
        guard try await store.setLanguage(language, accountId: accountId) else { throw APIError.notAuthenticated }
    }
}
