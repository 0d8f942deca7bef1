// Built with the package trait NIOTransport (which Server enables); see PlatformTransport.
#if NIOTransport
    import ClawlineProtocol
    import Foundation
    import Logging
    import NIOCore
    import NIOSSL
    import NIOWebSocket
    import WSClient

    /// The portable transport: swift-websocket's `WSClient` over SwiftNIO, on Linux and Apple
    /// platforms alike. A `wss://` URL whose host is an IP address goes through SwiftNIO's own
    /// WebSocket client instead (no TLS server name, the certificate's IP address checked).
    ///
    /// `WSClient` answers the server's pings but does not report them, so it pings on its own every
    /// `pingInterval` and closes a socket whose last ping is still unanswered when the next is due:
    /// with the default (half of the spec's `pingTimeout`), a half-open socket is found dead 45 to 90
    /// seconds after it went silent, within the 90 seconds the protocol allows.
    public struct WSClientTransport: WebSocketTransport {
        /// How often the client pings.
        public var pingInterval: Duration
        /// Where the transport logs (warnings and above by default).
        public var logger: Logger
        /// A PEM file of certificate authorities trusted for `wss://`, besides the system's (a
        /// provider whose certificate a private CA issued).
        public var trustedCAFile: String?

        /// A transport pinging every `pingInterval`, trusting `trustedCAFile` besides the system's roots.
        public init(
            pingInterval: Duration = Clawline.Constants.pingTimeout / 2, logger: Logger = WSClientTransport.defaultLogger,
            trustedCAFile: String? = nil
        ) {
            self.pingInterval = pingInterval
            self.logger = logger
            self.trustedCAFile = trustedCAFile
        }

        /// The client TLS configuration trusting `trustedCAFile` besides the system's roots.
        static func tlsConfiguration(trusting caFile: String?) -> TLSConfiguration {
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
            return tls
        }

        /// A logger that reports warnings and errors only.
        public static var defaultLogger: Logger {
            var logger = Logger(label: "clawline.client.websocket")
            logger.logLevel = .warning
            return logger
        }

        public func connect(to url: URL) async throws -> any WebSocketConnection {
            if url.scheme == "wss", let host = NIOWebSocketDialer.ipLiteral(of: url) {
                // WSClient would send the address as the TLS server name, which TLS forbids.
                return try await NIOWebSocketDialer.connect(
                    to: url, host: host, trustedCAFile: trustedCAFile, pingTimeout: Clawline.Constants.pingTimeout)
            }
            let (events, eventSink) = AsyncStream<WebSocketEvent>.makeStream()
            let (commands, commandSink) = AsyncStream<WSClientConnection.Command>.makeStream()
            let (opened, openedSink) = AsyncThrowingStream<Void, any Error>.makeStream()
            let configuration = WebSocketClientConfiguration(
                maxFrameSize: Clawline.Constants.maxFrameBytes, autoPing: .enabled(timePeriod: pingInterval))
            let logger = logger
            let tls = url.scheme == "wss" ? Self.tlsConfiguration(trusting: trustedCAFile) : nil
            let task = Task {
                do {
                    let closeFrame = try await WebSocketClient.connect(
                        url: url.absoluteString, configuration: configuration, tlsConfiguration: tls, logger: logger
                    ) {
                        inbound, outbound, _ in
                        openedSink.yield()
                        openedSink.finish()
                        let writer = Task {
                            for await command in commands {
                                switch command {
                                case .text(let text): try? await outbound.write(.text(text))
                                case .close(let code):
                                    try? await outbound.close(WebSocketErrorCode(codeNumber: code), reason: nil)
                                    return
                                }
                            }
                        }
                        defer { writer.cancel() }
                        for try await message in inbound.messages(maxSize: Clawline.Constants.maxFrameBytes) {
                            if case .text(let text) = message { eventSink.yield(.text(text)) }
                        }
                    }
                    eventSink.yield(.closed(code: closeFrame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }))
                } catch {
                    openedSink.finish(throwing: error)
                    eventSink.yield(.closed(code: nil))
                }
                eventSink.finish()
                commandSink.finish()
            }
            return try await withTaskCancellationHandler {
                for try await _ in opened {
                    return WSClientConnection(events: events, commands: commandSink, task: task)
                }
                throw ClawlineClientError.connectionFailed("the WebSocket to \(url.absoluteString) closed before it opened")
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// A socket opened by ``WSClientTransport``: its sends and close are commands to the task that
    /// runs the socket (WSClient's, or ``NIOWebSocketSession``'s for an address).
    final class WSClientConnection: WebSocketConnection {
        enum Command: Sendable {
            case text(String)
            case close(Int)
        }

        let events: AsyncStream<WebSocketEvent>
        private let commands: AsyncStream<Command>.Continuation
        private let task: Task<Void, Never>

        init(events: AsyncStream<WebSocketEvent>, commands: AsyncStream<Command>.Continuation, task: Task<Void, Never>) {
            self.events = events
            self.commands = commands
            self.task = task
        }

        deinit {
            commands.finish()
            task.cancel()
        }

        func send(_ text: String) {
            commands.yield(.text(text))
        }

        func close(code: Int) {
            commands.yield(.close(code))
        }
    }
#endif
