import ClawlineProtocol
import Foundation

extension UserId {
    /// The id of a new account, as the contract names accounts: `user_` followed by a random
    /// version 4 UUID (`"userId": "user_..."`, "new UUID for new accounts"). Providers may refuse a
    /// new account's id of another form; an existing account keeps the id its provider gave it.
    public static func newAccount() -> UserId {
        UserId("user_" + UUID().uuidString.lowercased())
    }
}
