/// The ceremonies' storage, handed out by the store that every feature shares.
extension Store {
    /// Registration's and login's writes, in the order that suits the database (`CeremonyStorage`): two
    /// references in a value, made per use (no allocation: the existential holds it inline).
    var ceremonies: any CeremonyStorage {
        switch connections.flavor {
        case .sqlite: SQLiteCeremonyStorage(connections: connections, audit: audit, queuesOIDCLogouts: queuesOIDCLogouts)
        case .postgres: PostgresCeremonyStorage(connections: connections, audit: audit, queuesOIDCLogouts: queuesOIDCLogouts)
        }
    }
}
