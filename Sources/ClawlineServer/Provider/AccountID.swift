import WireRuntime

/// The form of the account ids this provider creates: `user_` followed by a lowercase version 4
/// UUID, as the contract's example (`"userId": "user_..."`) and the protocol author's provider
/// have it.
///
/// The form binds only *new* accounts. An account that already exists keeps its id whatever its
/// form, so the accounts earlier versions of this server minted as bare UUIDs go on working: their
/// devices authenticate, and an admin approves new devices into them by that id.
enum AccountID {
    /// The prefix of every account id this provider mints.
    static let prefix = "user_"

    /// A new account id: `user_` and a random version 4 UUID.
    static func mint() -> String { prefix + RandomUUID.version4().lowercased }

    /// Whether `userID` is `user_` followed by a version 4 UUID (of either case).
    static func isWellFormed(_ userID: String) -> Bool {
        userID.hasPrefix(prefix) && WireFormats.isUUIDv4(String(userID.dropFirst(prefix.count)))
    }

    /// Why a decision naming `userID` for a new account is refused.
    static func refusal(_ userID: String) -> String {
        "no account '\(userID)' exists, and a new account's id must be 'user_' followed by a version 4 UUID "
            + "(user_3f2e1d0c-8b7a-4c6d-9e5f-0a1b2c3d4e5f, say); to add the device to an existing account, name that account's id"
    }
}
