import Foundation
import Logging
import PostgresNIO

/// Client message ids and each account's events.
extension PostgresProviderStore {
    // MARK: Messages and events

    public func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance {
        let logger = logger
        let claim: Claim = try await client.withTransaction(logger: logger) { connection in
            try await Self.lockAccount(echo.userID, on: connection, logger: logger)
            let claim = ClaimClientMessage(deviceID: deviceID, clientMessageID: clientMessageID, fingerprint: fingerprint, eventID: echo.eventID)
            if try await !Self.rows(claim, on: connection, logger: logger).isEmpty {
                guard let number = try await Self.rows(InsertEvent(event: echo), on: connection, logger: logger).first else {
                    throw StoreFailure("the echo was stored without a number")
                }
                return .new(number: number)
            }
            let earlier = ClaimedClientMessage(deviceID: deviceID, clientMessageID: clientMessageID)
            guard let row = try await Self.rows(earlier, on: connection, logger: logger).first else {
                throw StoreFailure("the message was neither claimed nor found")
            }
            return .earlier(fingerprint: row.0, eventID: row.1, failed: row.2)
        }
        switch claim {
        case .new(let number):
            return .accepted(number: number)
        case .earlier(let storedFingerprint, let eventID, let failed):
            if failed { return .conflict(reason: "the answer to '\(clientMessageID)' failed; send the message again under a new id") }
            guard storedFingerprint == fingerprint else {
                return .conflict(reason: "'\(clientMessageID)' was sent before with other content or attachments")
            }
            return .retry(eventID: eventID)
        }
    }

    public func markFailed(clientMessageID: String, deviceID: String) async throws {
        try await client.query(
            "UPDATE client_messages SET failed = TRUE WHERE device_id = \(deviceID) AND client_id = \(clientMessageID)", logger: logger)
    }

    @discardableResult
    public func append(_ event: StoredEvent) async throws -> Int? {
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            try await Self.lockAccount(event.userID, on: connection, logger: logger)
            return try await Self.rows(InsertEvent(event: event), on: connection, logger: logger).first
        }
    }

    /// Serialises the appends of one account until the transaction ends, so its events commit in
    /// the order of their sequence numbers.
    private static func lockAccount(_ userID: String, on connection: PostgresConnection, logger: Logger) async throws {
        _ = try await rows(LockAccount(userID: userID), on: connection, logger: logger)
    }

    public func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        // The cursor's place in the account's history, looked up once: it bounds the page and says
        // whether the cursor is known (an event id is never removed, so the two reads agree).
        var cursorPlace: (seq: Int, number: Int?)?
        if let cursor { cursorPlace = try await self.rows(EventSequence(eventID: cursor, userID: userID)).last }
        let rows = try await self.rows(EventPage(userID: userID, afterSequence: cursorPlace?.seq ?? 0, limit: limit + 1))
        let events = rows.prefix(limit).reversed().map { StoredEvent(eventID: $0.0, userID: userID, frame: $0.1, number: $0.2) }
        // With nothing after the cursor, the cursor is the newest event.
        return ReplayPage(
            events: events, truncated: rows.count > limit, cursorUnknown: cursor != nil && cursorPlace == nil,
            newestNumber: events.isEmpty ? (cursorPlace?.number ?? 0) : events.last?.number)
    }
}

/// What claiming a client message id found: a new claim (its echo's number), or an earlier one.
private enum Claim: Sendable {
    case new(number: Int)
    case earlier(fingerprint: String, eventID: String, failed: Bool)
}
