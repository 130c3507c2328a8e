import Foundation
@testable import LatchkeyDatabase
import Testing
@testable import LatchkeyServer

/// The admin account search through its indexes (migration 17: SQLite FTS5 trigram tables, PostgreSQL
/// pg_trgm), on every database: it finds exactly what the search that read every row found, for texts
/// full of LIKE's own characters and for case folding beyond ASCII, and the index follows every change
/// of a name. Part of the storage suite (one PostgreSQL database, one test at a time).
extension StoreTests {
  @Suite struct AccountSearchIndexing {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)

    /// The search as it was before the indexes (migration 16's statement, word for word): the reference.
    static let before = StoreStatement("""
        SELECT \(SQL.accountSummaryColumns(now: "$9")) FROM accounts a
        WHERE a.id > $1
          AND ($3 = '' OR a.id = $3 OR lower(a.display_name) LIKE $4 ESCAPE '\\'
               OR EXISTS (SELECT 1 FROM credentials c WHERE c.account_id = a.id AND lower(c.name) LIKE $4 ESCAPE '\\'))
          AND ($6 = 0 OR EXISTS (SELECT 1 FROM credentials c WHERE c.account_id = a.id AND c.aaguid = $5))
          AND (SELECT coalesce(max(c.last_used_at), 0) FROM credentials c WHERE c.account_id = a.id) >= $7
          AND (SELECT coalesce(max(c.last_used_at), 0) FROM credentials c WHERE c.account_id = a.id) < $8
        ORDER BY a.id LIMIT $2
        """)

    static func searchedBefore(_ store: Store, _ search: AdminAccountStore.AccountSearch) async throws -> [String] {
        let escaped = search.text.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        let query = StoreQuery(
            before, .text(search.after), .integer(Int64(search.limit)), .text(search.text), .text("%\(escaped)%"),
            .blob(search.aaguid ?? []), .integer(search.aaguid != nil),
            .integer(search.lastLoginFrom.map(Timestamp.milliseconds) ?? .min), .integer(search.lastLoginBefore.map(Timestamp.milliseconds) ?? .max),
            .milliseconds(at))
        return try await store.connections.withConnection { db in
            try await db.all(query).map { try $0.decode(column: "id", as: String.self) }
        }
    }

    static func ids(_ store: Store, _ search: AdminAccountStore.AccountSearch) async throws -> [String] {
        try await store.adminAccounts.search(search, now: at).map(\.account.id)
    }

    static func account(_ id: String, _ name: String) -> AccountRecord {
        var account = StoreTests.account(id)
        account.displayName = name
        return account
    }

    static func passkey(_ byte: UInt8, _ account: String, _ name: String, aaguid: UInt8 = 7, used: TimeInterval? = nil) -> CredentialRecord {
        CredentialRecord(
            id: [0x5e, byte], accountId: account, publicKey: [0xa5, 1, 2], algorithm: -7, signCount: 0, transports: ["internal"],
            aaguid: [UInt8](repeating: aaguid, count: 16), attestationFormat: "none", backupEligible: true, backupState: true,
            uvInitialized: true, name: name, createdAt: Date(timeIntervalSince1970: 1_600_000_000),
            lastUsedAt: used.map { Date(timeIntervalSince1970: $0) })
    }

    /// Accounts whose names hold LIKE's wildcards and escape, text in several scripts and cases, and
    /// passkeys with names, AAGUIDs and last uses of their own.
    static func fill(_ store: Store) async throws {
        let people: [(String, String, [(String, UInt8, TimeInterval?)])] = [
            ("a01", "Ada Lovelace", [("YubiKey 5 NFC", 1, 1_700_000_000)]),
            ("a02", "50% off_sale", [("Phone", 7, nil)]),
            ("a03", "back\\slash user", [("100%_real key", 7, 1_750_000_000), ("Laptop", 2, 1_600_000_000)]),
            ("a04", "ÉMILE ZOLA", [("Téléphone", 7, nil)]),
            ("a05", "émile zola", [("iCloud Keychain", 3, 1_790_000_000)]),
            ("a06", "Straße Müller", [("STRASSE", 7, nil)]),
            ("a07", "ΔΈΛΤΑ δέλτα", [("Phone", 7, 1_650_000_000)]),
            ("a08", "Grace ✨ Hopper", [("under_score", 1, nil)]),
            ("a09", "percent%%sign", [("a\"quote\"", 7, nil)]),
            ("a10", "Ada ada ADA", [("İstanbul key", 4, 1_799_999_999)]),
        ]
        var byte: UInt8 = 0
        for (id, name, passkeys) in people {
            for (index, passkey) in passkeys.enumerated() {
                byte += 1
                let credential = Self.passkey(byte, id, passkey.0, aaguid: passkey.1, used: passkey.2)
                if index == 0 {
                    try await store.ceremonies.createAccount(Self.account(id, name), credential: credential)
                } else {
                    try await store.ceremonies.addCredential(credential)
                }
            }
        }
    }

    static let texts = [
        "ada", "ADA", "lovelace", "50%", "% o", "0% off", "f_s", "_sa", "%%%", "%_r", "k\\s", "\\sl", "h u",
        "émile", "ÉMILE", "Émi", "ZOLA", "zol", "straße", "STRASSE", "ss", "müller", "MÜLLER", "δέλ", "ΔΈΛ", "έλτ",
        "✨ h", "phone", "PHONE", "téléphone", "TÉLÉPHONE", "nfc", "\"quo", "quote\"", "istanbul", "i̇st", "İst", "a03",
        // Shorter than the trigrams: the store still answers them (reading every account); the service refuses them.
        "a", "%", "_", "\\", "é", "✨",
        "nobody has this", "ada lovelace and more",
    ]

    /// `indexed`: the rows moved into the FTS5 tables first; otherwise all still pending (SQLite).
    @Test(
        "the indexed search finds what the search reading every row found: LIKE's characters, case beyond ASCII, short texts, filters",
        arguments: Backends.all, [false, true])
    func sameAsBefore(backend: String, indexed: Bool) async throws {
        try await Backends.with(backend) { store in
            try await Self.fill(store)
            if indexed {
                try await store.indexPendingNames()
                if backend != "postgres" { #expect(try await Self.pending(store) == 0) }
            }
            var checked = 0
            for text in Self.texts {
                for aaguid in [nil, [UInt8](repeating: 7, count: 16)] {
                    var search = AdminAccountStore.AccountSearch()
                    search.text = text
                    search.aaguid = aaguid
                    let expected = try await Self.searchedBefore(store, search)
                    #expect(try await Self.ids(store, search) == expected, "text \(text), aaguid \(aaguid == nil ? "any" : "7")")
                    // PostgreSQL's other way for a text: counted, then read again (taken when a text has
                    // `AdminAccountStore.searchFoundLimit` matches or more; here with a limit of 1).
                    #expect(try await store.adminAccounts.search(search, now: Self.at, foundLimit: 1).map(\.account.id) == expected,
                            "text \(text), counted way")
                    checked += expected.count
                }
            }
            #expect(checked > 20, "the texts find something")
            // The exact id, and paging in id order.
            var byId = AdminAccountStore.AccountSearch()
            byId.text = "a05"
            #expect(try await Self.ids(store, byId) == ["a05"])
            var paged = AdminAccountStore.AccountSearch()
            paged.text = "ada"
            paged.limit = 1
            #expect(try await Self.ids(store, paged) == ["a01"])
            paged.after = "a01"
            #expect(try await Self.ids(store, paged) == ["a10"])
            // Last-login ranges: from a time (through the index by last use), before one (never signed in
            // counts as the epoch), both, and with text.
            let ranges: [(Date?, Date?)] = [
                (Date(timeIntervalSince1970: 1_700_000_000), nil), (nil, Date(timeIntervalSince1970: 1_700_000_000)),
                (Date(timeIntervalSince1970: 1_640_000_000), Date(timeIntervalSince1970: 1_760_000_000)),
                (Date(timeIntervalSince1970: 1), nil), (Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1)),
            ]
            for (from, before) in ranges {
                for text in ["", "ada", "phone"] {
                    var search = AdminAccountStore.AccountSearch()
                    search.text = text
                    search.lastLoginFrom = from
                    search.lastLoginBefore = before
                    #expect(try await Self.ids(store, search) == (try await Self.searchedBefore(store, search)), "range \(String(describing: from))…\(String(describing: before)), text \(text)")
                }
            }
            var recent = AdminAccountStore.AccountSearch()
            recent.lastLoginFrom = Date(timeIntervalSince1970: 1_750_000_000)
            #expect(try await Self.ids(store, recent) == ["a03", "a05", "a10"])
            var yubikeys = AdminAccountStore.AccountSearch()
            yubikeys.aaguid = [UInt8](repeating: 1, count: 16)
            #expect(try await Self.ids(store, yubikeys) == ["a01", "a08"])
        }
    }

    /// How many rows both pending tables hold (SQLite only).
    static func pending(_ store: Store) async throws -> Int {
        try await store.connections.withConnection { db in
            try await db.raw("""
                SELECT (SELECT count(*) FROM account_name_trigrams_pending) + (SELECT count(*) FROM credential_name_trigrams_pending) AS n
                """).first()?.decode(column: "n", as: Int.self) ?? -1
        }
    }

    /// How many rows of a trigram table hold all of `text`'s trigrams (SQLite only).
    static func indexed(_ store: Store, _ table: String, _ text: String) async throws -> Int {
        let fts = try #require(AccountSearchIndex.ftsQuery(text.lowercased()))
        return try await store.connections.withConnection { db in
            try await db.raw("SELECT count(*) AS n FROM \(unsafeRaw: table) WHERE \(unsafeRaw: table) MATCH \(bind: fts)").first()?
                .decode(column: "n", as: Int.self) ?? -1
        }
    }

    /// With `indexEachStep`, the pending rows are indexed after every change (each change then meets
    /// rows in the FTS5 tables); without, every change meets rows still pending (SQLite, migration 18).
    @Test(
        "the index follows every change: a new account and passkey, a rename of either, a removed passkey, a deleted account",
        arguments: Backends.all, [false, true])
    func indexFollowsChanges(backend: String, indexEachStep: Bool) async throws {
        try await Backends.with(backend) { store in
            try await Self.fill(store)
            if backend != "postgres" {
                // It says how many rows it moved (the larger of the two tables'): SearchIndexing and the
                // bulk paths go round again while a batch comes back full.
                #expect(try await store.indexPendingNames() == 11, "the larger count: fill's 11 passkeys (of 10 accounts)")
                #expect(try await store.indexPendingNames() == 0)
            }
            if indexEachStep { try await store.indexPendingNames() }
            if backend == "postgres" {
                // This PostgreSQL has the contrib modules: migration 17 made the trigram indexes.
                let indexes = try await store.connections.withConnection { db in
                    try await db.raw("""
                        SELECT count(*) AS n FROM pg_indexes WHERE schemaname = current_schema()
                        AND indexname IN ('accounts_by_name_trigrams', 'credentials_by_name_trigrams') AND indexdef LIKE '%gin_trgm_ops%'
                        """).first()?.decode(column: "n", as: Int.self)
                }
                #expect(indexes == 2)
            }
            func found(_ text: String) async throws -> [String] {
                if indexEachStep { try await store.indexPendingNames() }
                var search = AdminAccountStore.AccountSearch()
                search.text = text
                let ids = try await Self.ids(store, search)
                #expect(ids == (try await Self.searchedBefore(store, search)), "text \(text)")
                return ids
            }
            try await store.ceremonies.createAccount(Self.account("b01", "Margaret Hamilton"), credential: Self.passkey(90, "b01", "Apollo key"))
            #expect(try await found("hamilton") == ["b01"])
            #expect(try await found("apollo") == ["b01"])
            _ = try await store.updateAccount(id: "b01", displayName: "Margaret Heafield", credo: nil, now: Self.at)
            #expect(try await found("hamilton") == [])
            #expect(try await found("heafield") == ["b01"])
            // A credo change leaves the name (and its index rows) alone.
            _ = try await store.updateAccount(id: "b01", displayName: nil, credo: "Ça va", now: Self.at)
            #expect(try await found("heafield") == ["b01"])
            let renamed = try await store.renameCredential(
                id: [0x5e, 90], accountId: "b01", name: "Saturn key",
                event: AuditOrigin.test.event(.passkeyRenamed, at: Self.at, account: "b01", credential: [0x5e, 90]))
            #expect(renamed?.name == "Saturn key")
            #expect(try await found("apollo") == [])
            #expect(try await found("saturn") == ["b01"])
            try await store.ceremonies.addCredential(Self.passkey(91, "b01", "Gemini key"))
            #expect(try await found("gemini") == ["b01"])
            #expect(try await found(" key").contains("b01"))
            #expect(try await store.adminAccounts.removeCredential(
                id: [0x5e, 91], accountId: "b01", allowLast: false,
                event: AuditOrigin.test.event(.passkeyRemoved, at: Self.at, account: "b01", credential: [0x5e, 91])) == .deleted)
            #expect(try await found("gemini") == [])
            if backend != "postgres" {
                // Without indexing in between, b01's rows were pending through every change: indexed now,
                // with their last names only; a passkey removed while pending was never indexed.
                try await store.indexPendingNames()
                #expect(try await Self.pending(store) == 0)
                #expect(try await Self.indexed(store, "account_name_trigrams", "hamilton") == 0)
                #expect(try await Self.indexed(store, "account_name_trigrams", "heafield") == 1)
                #expect(try await Self.indexed(store, "credential_name_trigrams", "apollo") == 0)
                #expect(try await Self.indexed(store, "credential_name_trigrams", "gemini") == 0)
                #expect(try await Self.indexed(store, "credential_name_trigrams", "saturn") == 1)
            }
            try await store.deleteAccount(id: "b01")
            try await store.ceremonies.createAccount(Self.account("b02", "Katherine Johnson"), credential: Self.passkey(92, "b02", "Orbit key"))
            try await store.deleteAccount(id: "b02")
            #expect(try await found("johnson") == [])
            #expect(try await found("orbit") == [])
            #expect(try await found("heafield") == [])
            #expect(try await found("saturn") == [])
            if backend != "postgres" {
                #expect(try await Self.indexed(store, "account_name_trigrams", "heafield") == 0)
                #expect(try await Self.indexed(store, "credential_name_trigrams", "saturn") == 0, "the passkey went with its account (ON DELETE CASCADE)")
                try await store.indexPendingNames()
                #expect(try await Self.pending(store) == 0, "a row deleted while pending leaves nothing pending")
                #expect(try await Self.indexed(store, "account_name_trigrams", "johnson") == 0)
                #expect(try await Self.indexed(store, "credential_name_trigrams", "orbit") == 0)
                // Every account and passkey has its row, no more: the tables hold what the triggers wrote.
                let counts = try await store.connections.withConnection { db in
                    try await db.raw("""
                        SELECT (SELECT count(*) FROM account_name_trigrams WHERE account_name_trigrams MATCH '"ada" OR "zol" OR "ße " OR "δέλ" OR "✨ h" OR "%%s" OR "sla" OR "0% "') AS n
                        """).first()?.decode(column: "n", as: Int.self)
                }
                #expect(counts == 10, "the 10 accounts of fill, each once; none of b01")
            }
        }
    }
  }
}
