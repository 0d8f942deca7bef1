// Compiled wherever Foundation has URLSessionWebSocketTask: Apple platforms, and Linux's
// FoundationNetworking (where CI compiles it; Debian's libcurl has no WebSocket, so it does not
// run there). It is kept to the task's calls: everything else is TaskConnection, tested everywhere.
#if canImport(Darwin) || canImport(FoundationNetworking)
    import ClawlineProtocol
    import Foundation
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Foundation's `URLSessionWebSocketTask`: the default on Apple platforms without the trait
    /// `NIOTransport`. It answers the server's pings itself; it does not ping on its own, so a
    /// half-open socket is found by the system's TCP keepalive rather than within 90 seconds.
    public struct URLSessionTransport: WebSocketTransport {
        /// The session the tasks are made by.
        public var session: URLSession

        /// A transport on `session`.
        public init(session: URLSession = .shared) {
            self.session = session
        }

        public func connect(to url: URL) async throws -> any WebSocketConnection {
            let task = session.webSocketTask(with: url)
            task.maximumMessageSize = Clawline.Constants.maxFrameBytes
            return try await TaskConnection.open(URLSessionTaskCalls(task: task), url: url)
        }
    }

    /// A `URLSessionWebSocketTask`'s calls.
    struct URLSessionTaskCalls: WebSocketTaskCalls {
        let task: URLSessionWebSocketTask

        func open() async throws {
            task.resume()
            // The task opens lazily: a ping answered proves the upgrade succeeded.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                task.sendPing { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        }

        func receive() async throws -> String? {
            if case .string(let text) = try await task.receive() { return text }
            return nil
        }

        func send(_ text: String) async throws {
            try await task.send(.string(text))
        }

        func close(code: Int) {
            task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: nil)
        }

        var peerCloseCode: Int? { task.closeCode == .invalid ? nil : task.closeCode.rawValue }
    }
#endif
