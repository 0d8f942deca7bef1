import Foundation

/// What happens on an open WebSocket, in order.
public enum WebSocketEvent: Sendable, Hashable {
    /// A text frame arrived.
    case text(String)
    /// The socket closed; the peer's close code when it sent one. Always the last event.
    case closed(code: Int?)
}

/// One open WebSocket carrying text frames.
public protocol WebSocketConnection: Sendable {
    /// Everything that happens on the socket; ends after ``WebSocketEvent/closed(code:)``.
    /// Read by one consumer.
    var events: AsyncStream<WebSocketEvent> { get }

    /// Queues a text frame for sending. Frames are sent in the order they were queued; a frame
    /// queued after the socket closed is dropped (the close event says so).
    func send(_ text: String)

    /// Starts the close handshake with `code` (1000 unless said otherwise).
    func close(code: Int)
}

/// Opens WebSockets. ``PlatformTransport/make()`` picks the default: `WSClientTransport` (portable,
/// swift-websocket's `WSClient`, with the package trait `NIOTransport`), else on Apple platforms
/// ``URLSessionTransport`` (Foundation's task). Tests inject their own.
public protocol WebSocketTransport: Sendable {
    /// Opens a socket to `url`; returns once the upgrade succeeded, throws when it failed.
    func connect(to url: URL) async throws -> any WebSocketConnection
}

extension WebSocketConnection {
    /// Starts a normal close (1000).
    public func close() { close(code: 1000) }
}
