import Foundation

/// The transport ``ChatService`` and ``ConnectionService`` use when they are given none.
///
/// - With the package trait `NIOTransport` (the server's `Server` trait enables it):
///   `WSClientTransport`, on every platform.
/// - Else on Apple platforms: ``URLSessionTransport``, which adds no package to an app.
/// - Else (Linux without the trait): a transport whose every connection fails with
///   ``ClawlineClientError/transportUnavailable(_:)``, which says how to get one.
public enum PlatformTransport {
    /// The default transport on this platform and with these traits.
    public static func make() -> any WebSocketTransport {
        #if NIOTransport
            WSClientTransport()
        #elseif canImport(Darwin)
            URLSessionTransport()
        #else
            UnavailableTransport()
        #endif
    }
}

/// The default where none is built: every connection fails and says what to do.
struct UnavailableTransport: WebSocketTransport {
    func connect(to url: URL) async throws -> any WebSocketConnection {
        throw ClawlineClientError.transportUnavailable(
            "no WebSocket transport is built for this platform: enable the package trait NIOTransport "
                + "(.package(url: …, traits: [\"NIOTransport\"])) or pass a transport to the service")
    }
}
