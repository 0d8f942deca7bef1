// The Security framework exists on Apple platforms only; CI (Linux) does not compile this file.
// It is kept to the calls themselves: every decision is in KeychainItems, tested everywhere.
#if canImport(Security)
    import Foundation
    import Security

    /// Secrets as generic-password items of the keychain, under one service name: they survive
    /// reinstalls, as the protocol asks of the device id.
    public struct KeychainSecretStore: SecretStore {
        /// The keychain service the items are filed under.
        public let service: String
        private let items: KeychainItems<SecurityCalls>

        /// A store filing its items under `service`.
        public init(service: String = "clawline") {
            self.service = service
            items = KeychainItems(calls: SecurityCalls(service: service))
        }

        public func read(_ name: String) throws -> Data? { try items.read(name) }
        public func write(_ value: Data, as name: String) throws { try items.write(value, as: name) }
        public func remove(_ name: String) throws { try items.remove(name) }
    }

    /// Security's `SecItem…` calls for one service.
    struct SecurityCalls: KeychainCalls {
        let service: String

        private func query(_ account: String) -> [String: Any] {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
        }

        private static func outcome(_ status: OSStatus) -> KeychainOutcome {
            switch status {
            case errSecSuccess: .success
            case errSecItemNotFound: .itemNotFound
            default: .failed(status)
            }
        }

        func copy(account: String) -> (KeychainOutcome, Data?) {
            var query = query(account)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: AnyObject?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            return (Self.outcome(status), result as? Data)
        }

        func update(account: String, data: Data) -> KeychainOutcome {
            Self.outcome(SecItemUpdate(query(account) as CFDictionary, [kSecValueData as String: data] as CFDictionary))
        }

        func add(account: String, data: Data) -> KeychainOutcome {
            var item = query(account)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            return Self.outcome(SecItemAdd(item as CFDictionary, nil))
        }

        func delete(account: String) -> KeychainOutcome {
            Self.outcome(SecItemDelete(query(account) as CFDictionary))
        }
    }
#endif
