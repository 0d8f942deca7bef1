import Logging
import PostgresNIO

/// The statements of the per-message path (claim, append, replay, a device's lookup), prepared
/// once per pooled connection and reused: PostgreSQL parses and plans each of them once per
/// connection instead of once per call. PostgresNIO names a statement after its type and keeps it
/// prepared for the connection's life.
extension PostgresProviderStore {
    /// Serialises the appends of one account until the transaction ends.
    struct LockAccount: PostgresPreparedStatement {
        static let sql = "SELECT pg_advisory_xact_lock(hashtext($1))"
        typealias Row = ()
        let userID: String
        func makeBindings() -> PostgresBindings { bindings(userID) }
        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }

    /// Claims a client message id for an echo; a row (the event id) when the claim is new.
    struct ClaimClientMessage: PostgresPreparedStatement {
        static let sql = """
            INSERT INTO client_messages (device_id, client_id, fingerprint, event_id) VALUES ($1, $2, $3, $4)
            ON CONFLICT (device_id, client_id) DO NOTHING RETURNING event_id
            """
        typealias Row = String
        let deviceID: String, clientMessageID: String, fingerprint: String, eventID: String
        func makeBindings() -> PostgresBindings { bindings(deviceID, clientMessageID, fingerprint, eventID) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// What an earlier claim of a client message id stored: its fingerprint, event and failure.
    struct ClaimedClientMessage: PostgresPreparedStatement {
        static let sql = "SELECT fingerprint, event_id, failed FROM client_messages WHERE device_id = $1 AND client_id = $2"
        typealias Row = (String, String, Bool)
        let deviceID: String, clientMessageID: String
        func makeBindings() -> PostgresBindings { bindings(deviceID, clientMessageID) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Appends one event to an account's history, numbered one past the account's newest (the
    /// caller holds the account's lock); the row is its number.
    struct InsertEvent: PostgresPreparedStatement {
        static let sql = """
            INSERT INTO events (event_id, user_id, frame, number)
            VALUES ($1, $2, $3, (SELECT COALESCE(MAX(number), 0) + 1 FROM events WHERE user_id = $2)) RETURNING number
            """
        typealias Row = Int
        let event: StoredEvent
        func makeBindings() -> PostgresBindings { bindings(event.eventID, event.userID, event.frame) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// An event's place in its account's history: its sequence and its number.
    struct EventSequence: PostgresPreparedStatement {
        static let sql = "SELECT seq, number FROM events WHERE event_id = $1 AND user_id = $2"
        typealias Row = (Int, Int?)
        let eventID: String, userID: String
        func makeBindings() -> PostgresBindings { bindings(eventID, userID) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The newest `limit` events of an account after a place in its history, newest first.
    struct EventPage: PostgresPreparedStatement {
        static let sql = "SELECT event_id, frame, number FROM events WHERE user_id = $1 AND seq > $2 ORDER BY seq DESC LIMIT $3"
        typealias Row = (String, String, Int?)
        let userID: String, afterSequence: Int, limit: Int
        func makeBindings() -> PostgresBindings { bindings(userID, afterSequence, limit) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// One device, by id.
    struct DeviceByID: PostgresPreparedStatement {
        static let sql = "SELECT \(PostgresProviderStore.deviceColumns) FROM devices WHERE device_id = $1"
        typealias Row = DeviceRow
        let deviceID: String
        func makeBindings() -> PostgresBindings { bindings(deviceID) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// When a device was last seen.
    struct MarkSeen: PostgresPreparedStatement {
        static let sql = "UPDATE devices SET last_seen = $1 WHERE device_id = $2"
        typealias Row = ()
        let seconds: Double, deviceID: String
        func makeBindings() -> PostgresBindings { bindings(seconds, deviceID) }
        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }

    /// Runs a prepared statement on a pooled connection and returns its rows.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] {
        try await Self.collect(client.execute(statement, logger: logger))
    }

    /// Runs a prepared statement on `connection` (inside a transaction) and returns its rows.
    static func rows<Statement: PostgresPreparedStatement>(
        _ statement: Statement, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Statement.Row] {
        try await collect(connection.execute(statement, logger: logger))
    }

    /// Reads a statement's rows to the end (which also gives a pooled connection back).
    private static func collect<Rows: AsyncSequence>(_ rows: Rows) async throws -> [Rows.Element] {
        var collected: [Rows.Element] = []
        for try await row in rows { collected.append(row) }
        return collected
    }
}

/// Bindings of `values`, in order ($1, $2, …).
private func bindings(_ values: any PostgresNonThrowingEncodable & Sendable...) -> PostgresBindings {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values { bindings.append(value) }
    return bindings
}
