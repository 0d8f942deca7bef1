// Built with the package trait NIOTransport (which Server enables); see WSClientTransport.
#if NIOTransport
    import ClawlineProtocol
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    import NIOWebSocket

    /// A `wss://` socket to a provider reached by IP address (`wss://192.168.1.20:8443/ws`), on
    /// SwiftNIO's own WebSocket upgrader.
    ///
    /// A TLS client must not send an IP literal as the server name (RFC 6066, section 3), and
    /// `WSClient` always sends the URL's host, so ``WSClientTransport`` dials such URLs here: no
    /// server name goes out, and the certificate is checked against its IP address
    /// subject-alternative names (SwiftNIO SSL matches them with the connected address).
    enum NIOWebSocketDialer {
        /// The host of `url` when it is an IP address literal (brackets of an IPv6 literal removed).
        static func ipLiteral(of url: URL) -> String? {
            guard var host = url.host else { return nil }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return (try? SocketAddress(ipAddress: host, port: 0)) != nil ? host : nil
        }

        private enum Upgrade: Sendable {
            case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
            case refused
        }

        /// Opens a WebSocket to `url` over TLS trusting `trustedCAFile` besides the system's roots,
        /// without a server name; returns once the upgrade succeeded.
        static func connect(to url: URL, host: String, trustedCAFile: String?, pingTimeout: Duration) async throws -> any WebSocketConnection {
            let port = url.port ?? 443
            let tls = try NIOSSLContext(configuration: WSClientTransport.tlsConfiguration(trusting: trustedCAFile))
            let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?\($0)" } ?? "")
            let upgrade: EventLoopFuture<Upgrade>
            do {
                upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: nil))
                        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: Clawline.Constants.maxFrameBytes) { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                            }
                        }
                        var headers = HTTPHeaders()
                        headers.add(name: "Host", value: url.port.map { "\(url.host ?? host):\($0)" } ?? (url.host ?? host))
                        headers.add(name: "Content-Length", value: "0")
                        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                            upgradeRequestHead: request, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .refused } })
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration))
                    }
                }
            } catch {
                throw ClawlineClientError.connectionFailed("could not connect to \(url.absoluteString): \(error)")
            }
            let result: Upgrade
            do {
                result = try await upgrade.get()
            } catch {
                throw ClawlineClientError.connectionFailed("the TLS handshake or WebSocket upgrade with \(url.absoluteString) failed: \(error)")
            }
            guard case .websocket(let channel) = result else {
                throw ClawlineClientError.connectionFailed("\(url.absoluteString) did not accept the WebSocket upgrade")
            }
            return NIOWebSocketSession.connection(on: channel, pingTimeout: pingTimeout)
        }
    }

    /// Runs a socket ``NIOWebSocketDialer`` opened: text frames (fragmented or not) become events,
    /// pings are answered, and a socket that hears nothing (not even a ping) for `pingTimeout` is
    /// closed as dead, as the contract says.
    enum NIOWebSocketSession {
        typealias Command = WSClientConnection.Command

        /// The connection an app holds: its commands drive `channel` until the close.
        static func connection(on channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, pingTimeout: Duration) -> WSClientConnection {
            let (events, eventSink) = AsyncStream<WebSocketEvent>.makeStream()
            let (commands, commandSink) = AsyncStream<Command>.makeStream()
            let task = Task {
                let code = try? await channel.executeThenClose { inbound, outbound in
                    try await Self.run(inbound: inbound, outbound: outbound, commands: commands, events: eventSink, pingTimeout: pingTimeout)
                }
                eventSink.yield(.closed(code: code ?? nil))
                eventSink.finish()
                commandSink.finish()
            }
            return WSClientConnection(events: events, commands: commandSink, task: task)
        }

        /// Reads frames until the close, writing what `commands` says meanwhile; returns the peer's close code.
        private static func run(
            inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>,
            commands: AsyncStream<Command>, events: AsyncStream<WebSocketEvent>.Continuation, pingTimeout: Duration
        ) async throws -> Int? {
            let heard = SocketLiveness()
            return try await withThrowingTaskGroup(of: Int??.self) { group in
                group.addTask {
                    for await command in commands {
                        switch command {
                        case .text(let text): try await outbound.write(Self.frame(.text, ByteBuffer(string: text)))
                        case .close(let code):
                            var payload = ByteBuffer()
                            payload.writeInteger(UInt16(code))
                            heard.closeSent()
                            try await outbound.write(Self.frame(.connectionClose, payload))
                        }
                    }
                    return .none
                }
                group.addTask {
                    // The contract's dead-socket rule: no frame, not even a ping, within pingTimeout.
                    while true {
                        try await Task.sleep(for: pingTimeout)
                        if heard.silentFor(atLeast: pingTimeout) { return .some(nil) }
                    }
                }
                group.addTask {
                    var message = ByteBuffer()
                    for try await frame in inbound {
                        heard.now()
                        switch frame.opcode {
                        case .text, .continuation:
                            var data = frame.unmaskedData
                            message.writeBuffer(&data)
                            if frame.fin {
                                events.yield(.text(String(buffer: message)))
                                message.clear()
                            }
                        case .ping: try await outbound.write(Self.frame(.pong, frame.unmaskedData))
                        case .connectionClose:
                            var data = frame.unmaskedData
                            let code = data.readInteger(as: UInt16.self).map(Int.init)
                            if !heard.sentClose {
                                // The close handshake: answer with the peer's code.
                                var payload = ByteBuffer()
                                payload.writeInteger(UInt16(code ?? 1000))
                                try? await outbound.write(Self.frame(.connectionClose, payload))
                            }
                            return .some(code)
                        default: continue
                        }
                    }
                    return .some(nil)
                }
                // The first task to end with an answer (the read loop, or the watchdog) ends the socket.
                while let ended = try await group.next() {
                    guard case .some(let code) = ended else { continue }
                    group.cancelAll()
                    return code
                }
                return nil
            }
        }

        /// A masked frame, as a client's must be (RFC 6455, section 5.3).
        private static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
            WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
        }
    }

    /// When a socket last heard from its peer, and whether it sent its own close.
    private final class SocketLiveness: @unchecked Sendable {
        private let lock = NSLock()
        private var last = ContinuousClock.now
        private var closing = false

        func now() { lock.withLock { last = .now } }

        func silentFor(atLeast duration: Duration) -> Bool { lock.withLock { ContinuousClock.now - last >= duration } }

        func closeSent() { lock.withLock { closing = true } }

        var sentClose: Bool { lock.withLock { closing } }
    }
#endif
