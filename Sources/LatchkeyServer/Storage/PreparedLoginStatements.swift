import LatchkeyDatabase

/// The login's look-up of its credential and account (`SQL.credentialWithAccount`).
enum CredentialWithAccountOnPostgres: PreparedOnPostgres {
    static var statement: StoreStatement { SQL.credentialWithAccount }
    static let name = "latchkey_credential_with_account"
}

/// The login's writes in one statement (`SQL.finishLoginAtOnce`).
enum FinishLoginOnPostgres: PreparedOnPostgres {
    static var statement: StoreStatement { SQL.finishLoginAtOnce }
    static let name = "latchkey_finish_login"
}
