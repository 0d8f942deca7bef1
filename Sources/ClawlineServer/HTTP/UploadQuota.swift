import NIOConcurrencyHelpers

/// Each account's uploads in progress on this node, against its quotas: how many at once, and
/// how many bytes it keeps with those on their way.
final class UploadQuota: Sendable {
    /// An upload that was let in; it must be ended, whatever happens to it.
    struct Ticket: Sendable {
        fileprivate let id: Int
        let userID: String
    }

    /// Why an upload may not go on.
    enum Refusal: Error, Sendable, Equatable {
        /// The account already sends `limit` uploads.
        case tooManyAtOnce(limit: Int)
        /// The account's uploads would pass `limit` bytes.
        case overQuota(limit: Int)

        var message: String {
            switch self {
            case .tooManyAtOnce(let limit): "an account sends at most \(limit) uploads at once; try again when one is done"
            case .overQuota(let limit): "an account keeps at most \(limit) bytes of uploads; this one would pass that"
            }
        }
    }

    private struct Account {
        /// The bytes received so far by each upload in progress.
        var uploads: [Int: Int] = [:]
    }

    private let accounts = NIOLockedValueBox<(next: Int, byUser: [String: Account])>((0, [:]))
    let maxConcurrent: Int
    let maxBytes: Int

    init(maxConcurrent: Int, maxBytes: Int) {
        self.maxConcurrent = maxConcurrent
        self.maxBytes = maxBytes
    }

    /// Lets an upload of `userID` in, unless the account already sends the most it may.
    func begin(userID: String) throws(Refusal) -> Ticket {
        let id: Int? = accounts.withLockedValue { state in
            var account = state.byUser[userID, default: Account()]
            guard account.uploads.count < maxConcurrent else { return nil }
            state.next += 1
            account.uploads[state.next] = 0
            state.byUser[userID] = account
            return state.next
        }
        guard let id else { throw .tooManyAtOnce(limit: maxConcurrent) }
        return Ticket(id: id, userID: userID)
    }

    /// Counts `count` more bytes of an upload; throws when the account's stored bytes
    /// (`stored`, as the store counted them when the upload began) and every upload in progress
    /// would pass the quota.
    func add(_ count: Int, to ticket: Ticket, stored: Int) throws(Refusal) {
        let fits = accounts.withLockedValue { state in
            guard var account = state.byUser[ticket.userID], let received = account.uploads[ticket.id] else { return false }
            let inFlight = account.uploads.values.reduce(0, +)
            guard stored + inFlight + count <= maxBytes else { return false }
            account.uploads[ticket.id] = received + count
            state.byUser[ticket.userID] = account
            return true
        }
        guard fits else { throw .overQuota(limit: maxBytes) }
    }

    /// Ends an upload (stored or not): it no longer counts.
    func end(_ ticket: Ticket) {
        accounts.withLockedValue { state in
            state.byUser[ticket.userID]?.uploads[ticket.id] = nil
            if state.byUser[ticket.userID]?.uploads.isEmpty == true { state.byUser[ticket.userID] = nil }
        }
    }
}
