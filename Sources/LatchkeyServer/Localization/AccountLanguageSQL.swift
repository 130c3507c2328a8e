import LatchkeyDatabase

/// The account's language's statements (`Store+AccountLanguage.swift`).
extension SQL {
    static let setAccountLanguage = StoreStatement("UPDATE accounts SET language = $2 WHERE id = $1 RETURNING id")
    static let accountLanguage = StoreStatement("SELECT language FROM accounts WHERE id = $1")
}
