import Foundation

/// The HTTP exchange ``ProviderHTTPClient`` uses when it is given none, chosen as
/// ``PlatformTransport`` chooses the WebSocket transport.
///
/// - With the package trait `NIOTransport` (the server's `Server` trait enables it):
///   `NIOHTTPExchange`, on every platform. On Linux, Foundation's `URLSession` runs its requests
///   on libcurl and libdispatch, which has crashed the process under load, and cannot trust a
///   private CA.
/// - Else: ``URLSessionExchange`` over `URLSession.shared`, which adds no package to an app.
public enum PlatformHTTPExchange {
    /// The default exchange on this platform and with these traits.
    public static func make() -> any HTTPExchange {
        #if NIOTransport
            NIOHTTPExchange()
        #else
            URLSessionExchange()
        #endif
    }
}
