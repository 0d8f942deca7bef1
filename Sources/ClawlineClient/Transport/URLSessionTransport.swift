// Compiled wherever Foundation has URLSessionWebSocketTask: Apple platforms, and Linux's
// FoundationNetworking (where CI compiles it; Debian's libcurl has no WebSocket, so it runs on Apple).
#if canImport(Darwin) || canImport(FoundationNetworking)
    import ClawlineProtocol
    import Foundation
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Foundation's `URLSessionWebSocketTask`, on Apple platforms (it does not work on Linux, where
    /// ``WSClientTransport`` is the default). It answers the server's pings itself; unlike
    /// ``WSClientTransport`` it does not ping on its own, so a half-open socket is found by the
    /// system's TCP keepalive rather than within 90 seconds.
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
            task.resume()
            // The task opens lazily: a ping answered proves the upgrade succeeded.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                task.sendPing { error in
                    if let error {
                        continuation.resume(throwing: ClawlineClientError.connectionFailed("\(url.absoluteString): \(error.localizedDescription)"))
                    } else {
                        continuation.resume()
                    }
                }
            }
            return URLSessionConnection(task: task)
        }
    }

    /// A socket opened by ``URLSessionTransport``.
    final class URLSessionConnection: WebSocketConnection {
        let events: AsyncStream<WebSocketEvent>
        private let task: URLSessionWebSocketTask
        private let outgoing: AsyncStream<String>.Continuation
        private let reader: Task<Void, Never>
        private let writer: Task<Void, Never>

        init(task: URLSessionWebSocketTask) {
            self.task = task
            let (events, eventSink) = AsyncStream<WebSocketEvent>.makeStream()
            let (texts, outgoing) = AsyncStream<String>.makeStream()
            self.events = events
            self.outgoing = outgoing
            reader = Task {
                while true {
                    do {
                        if case .string(let text) = try await task.receive() { eventSink.yield(.text(text)) }
                    } catch {
                        eventSink.yield(.closed(code: task.closeCode == .invalid ? nil : task.closeCode.rawValue))
                        eventSink.finish()
                        return
                    }
                }
            }
            // One writer keeps the frames in the order they were queued.
            writer = Task {
                for await text in texts { try? await task.send(.string(text)) }
            }
        }

        deinit {
            outgoing.finish()
            reader.cancel()
            writer.cancel()
            task.cancel(with: .goingAway, reason: nil)
        }

        func send(_ text: String) {
            outgoing.yield(text)
        }

        func close(code: Int) {
            task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: nil)
        }
    }
#endif
