import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// The database address: a `postgres://` URL, its TLS mode and schema.
extension PostgresProviderStore {
    /// What a `postgres://` URL says.
    struct Address {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String?
        var sslMode: String
        /// The PostgreSQL schema the tables live in (`?schema=NAME`), if not the default.
        var schema: String?

        init(_ url: String) throws {
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                let host = components.host, !host.isEmpty
            else {
                throw ServerSetupError("'\(redacted(url))' is not a PostgreSQL URL; write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
            }
            self.host = host
            port = components.port ?? 5432
            username = components.user ?? "postgres"
            password = components.password
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            database = path.isEmpty ? nil : path
            // Encrypted by default, unless the database is on this machine.
            sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? (Self.isLoopback(host) ? "disable" : "require")
            schema = components.queryItems?.first { $0.name == "schema" }?.value
            guard ["disable", "prefer", "require"].contains(sslMode) else {
                throw ServerSetupError("sslmode '\(sslMode)' is not supported; use disable, prefer or require")
            }
        }

        /// Whether `host` names this machine.
        static func isLoopback(_ host: String) -> Bool {
            ["localhost", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.") || host.hasPrefix("/")
        }

        var clientConfiguration: PostgresClient.Configuration {
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case "require": .require(.makeClientConfiguration())
                case "prefer": .prefer(.makeClientConfiguration())
                default: .disable
                }
            return PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }

        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let tls: PostgresConnection.Configuration.TLS =
                switch sslMode {
                case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                case "prefer": .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                default: .disable
                }
            return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
    }

    /// `url` without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
