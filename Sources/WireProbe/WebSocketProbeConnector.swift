// Built with the package trait NIOTransport (which Server enables); without it `wire probe` says
// how to get it.
#if NIOTransport
    import Foundation
    import Logging
    import NIOCore
    import NIOSSL
    import NIOWebSocket
    import WSClient

    /// Opens the probe's sockets with swift-websocket's `WSClient` (the `NIOTransport` trait).
    public struct WebSocketProbeConnector: ProbeConnector {
        /// The provider's WebSocket URL.
        public let url: URL
        /// A PEM file of certificate authorities trusted for `wss://`, besides the system's.
        public let trustedCAFile: String?
        /// The largest frame read from the provider (larger than any the spec allows, so a
        /// provider's oversized frame is seen rather than cut).
        public let maxFrameSize: Int

        /// A connector to `url`.
        public init(url: URL, trustedCAFile: String? = nil, maxFrameSize: Int = 1 << 24) {
            self.url = url
            self.trustedCAFile = trustedCAFile
            self.maxFrameSize = maxFrameSize
        }

        public func open() async throws -> any ProbeSocket {
            if url.scheme == "wss", let host = url.host, (try? SocketAddress(ipAddress: host, port: 0)) != nil {
                // WSClient would send the address as the TLS server name, which TLS forbids; the
                // probe's own client sends none and checks the certificate's IP address.
                return try await RawWebSocketConnector(url: url, trustedCAFile: trustedCAFile).openSocket(answeringPings: true)
            }
            let inbox = ProbeInbox()
            let (commands, commandSink) = AsyncStream<WebSocketProbeSocket.Command>.makeStream()
            let (opened, openedSink) = AsyncThrowingStream<Void, any Error>.makeStream()
            var tls: TLSConfiguration?
            if url.scheme == "wss" {
                var configuration = TLSConfiguration.makeClientConfiguration()
                if let trustedCAFile { configuration.additionalTrustRoots = [.file(trustedCAFile)] }
                tls = configuration
            }
            var logger = Logger(label: "wire.probe")
            logger.logLevel = .critical
            let configuration = WebSocketClientConfiguration(maxFrameSize: maxFrameSize, autoPing: .disabled)
            let task = Task { [url, maxFrameSize, logger, tls] in
                do {
                    let closeFrame = try await WebSocketClient.connect(
                        url: url.absoluteString, configuration: configuration, tlsConfiguration: tls, logger: logger
                    ) { inbound, outbound, _ in
                        openedSink.yield()
                        openedSink.finish()
                        let writer = Task {
                            for await command in commands {
                                switch command {
                                case .text(let text): try? await outbound.write(.text(text))
                                case .close:
                                    try? await outbound.close(.normalClosure, reason: nil)
                                    return
                                }
                            }
                        }
                        defer { writer.cancel() }
                        for try await message in inbound.messages(maxSize: maxFrameSize) {
                            if case .text(let text) = message { await inbox.deliver(.text(text)) }
                        }
                    }
                    // 1005 is what a close frame without a status code reads as: no code.
                    let code = closeFrame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }
                    await inbox.deliver(.closed(code: code == 1005 ? nil : code))
                } catch {
                    openedSink.finish(throwing: error)
                    await inbox.deliver(.closed(code: nil))
                }
                commandSink.finish()
            }
            do {
                for try await _ in opened {
                    return WebSocketProbeSocket(inbox: inbox, commands: commandSink, task: task)
                }
            } catch {
                throw ProbeSetupError("could not open a WebSocket to \(url.absoluteString): \(error)")
            }
            throw ProbeSetupError("the WebSocket to \(url.absoluteString) closed before it opened")
        }
    }

    /// A socket the probe opened.
    final class WebSocketProbeSocket: ProbeSocket {
        enum Command: Sendable {
            case text(String)
            case close
        }

        private let inbox: ProbeInbox
        private let commands: AsyncStream<Command>.Continuation
        private let task: Task<Void, Never>

        init(inbox: ProbeInbox, commands: AsyncStream<Command>.Continuation, task: Task<Void, Never>) {
            self.inbox = inbox
            self.commands = commands
            self.task = task
        }

        deinit {
            commands.finish()
            task.cancel()
        }

        func send(_ text: String) async throws { commands.yield(.text(text)) }

        func next(within timeout: Duration) async throws -> ProbeEvent? { await inbox.next(within: timeout) }

        func close() async { commands.yield(.close) }
    }
#endif
