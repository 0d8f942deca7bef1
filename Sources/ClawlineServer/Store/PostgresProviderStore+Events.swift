import Foundation
import Logging
import PostgresNIO

/// Client message ids and each account's events.
extension PostgresProviderStore {
    // MARK: Messages and events

    public func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance {
        let logger = logger
        let claim: (String, String, Bool)? = try await client.withTransaction(logger: logger) { connection in
            try await Self.lockAccount(echo.userID, on: connection, logger: logger)
            let claimed = try await connection.query(
                """
                INSERT INTO client_messages (device_id, client_id, fingerprint, event_id)
                VALUES (\(deviceID), \(clientMessageID), \(fingerprint), \(echo.eventID))
                ON CONFLICT (device_id, client_id) DO NOTHING RETURNING event_id
                """, logger: logger
            ).collect()
            if !claimed.isEmpty {
                try await connection.query(
                    "INSERT INTO events (event_id, user_id, frame) VALUES (\(echo.eventID), \(echo.userID), \(echo.frame))", logger: logger)
                return nil
            }
            for try await row in try await connection.query(
                "SELECT fingerprint, event_id, failed FROM client_messages WHERE device_id = \(deviceID) AND client_id = \(clientMessageID)",
                logger: logger
            ).decode((String, String, Bool).self) {
                return row
            }
            throw StoreFailure("the message was neither claimed nor found")
        }
        guard let (storedFingerprint, eventID, failed) = claim else { return .accepted }
        if failed { return .conflict(reason: "the answer to '\(clientMessageID)' failed; send the message again under a new id") }
        guard storedFingerprint == fingerprint else {
            return .conflict(reason: "'\(clientMessageID)' was sent before with other content or attachments")
        }
        return .retry(eventID: eventID)
    }

    public func markFailed(clientMessageID: String, deviceID: String) async throws {
        try await client.query(
            "UPDATE client_messages SET failed = TRUE WHERE device_id = \(deviceID) AND client_id = \(clientMessageID)", logger: logger)
    }

    public func append(_ event: StoredEvent) async throws {
        let logger = logger
        try await client.withTransaction(logger: logger) { connection in
            try await Self.lockAccount(event.userID, on: connection, logger: logger)
            try await connection.query(
                "INSERT INTO events (event_id, user_id, frame) VALUES (\(event.eventID), \(event.userID), \(event.frame))", logger: logger)
        }
    }

    /// Serialises the appends of one account until the transaction ends, so its events commit in
    /// the order of their sequence numbers.
    private static func lockAccount(_ userID: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(userID)))", logger: logger)
    }

    public func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        // The cursor's place in the account's history, looked up once: it bounds the page and says
        // whether the cursor is known (an event id is never removed, so the two reads agree).
        var cursorSeq: Int?
        if let cursor {
            let lookup: PostgresQuery = "SELECT seq FROM events WHERE event_id = \(cursor) AND user_id = \(userID)"
            for try await seq in try await client.query(lookup, logger: logger).decode(Int.self) { cursorSeq = seq }
        }
        var rows: [(String, String)] = []
        let query: PostgresQuery = """
            SELECT event_id, frame FROM events WHERE user_id = \(userID) AND seq > \(cursorSeq ?? 0) ORDER BY seq DESC LIMIT \(limit + 1)
            """
        for try await row in try await client.query(query, logger: logger).decode((String, String).self) { rows.append(row) }
        let events = rows.prefix(limit).reversed().map { StoredEvent(eventID: $0.0, userID: userID, frame: $0.1) }
        return ReplayPage(events: events, truncated: rows.count > limit, cursorUnknown: cursor != nil && cursorSeq == nil)
    }
}
