import ClawlineProtocol
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import WireRuntime

/// Serves one WebSocket: every received frame is decoded by the generated `ClientFrame`, checked
/// by the session machine, answered as the decode result or the broken rule says, and otherwise
/// dispatched; the socket's ``SocketFrameWriter`` drains what the server has for it.
struct ConnectionHandler: ClientFrameHandler {
    let hub: ProviderHub
    let connection: ServerConnection
    /// What the token of the `auth` being handled proved, checked once as the frame arrived (it
    /// decides whose rate window the frame counts in).
    private var checkedToken: Result<DeviceClaims, TokenRejection>?
    /// The socket's logger (with its session, device and account).
    var logger: Logger { connection.logger }

    /// The largest frame read at all: one up to the spec's `maxFrameBytes` is handled; one up to
    /// this is answered `payload_too_large` and closed (1009); a larger one is closed (1009)
    /// unanswered, without being read into memory.
    static let hardFrameLimit = 2 * Clawline.Constants.maxFrameBytes

    /// Runs the socket until either side closes it.
    static func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, hub: ProviderHub,
        remoteAddress: String?, channel: any Channel, logger: Logger
    ) async {
        let environment = hub.environment
        let connection = ServerConnection(
            now: environment.elapsed, remoteAddress: remoteAddress, outboxLimit: hub.limits.maxUnsentBytesPerSocket, logger: logger,
            logsContent: hub.logsContent, metrics: hub.metrics,
            onOverflow: { Self.closeIfStuck(channel, after: hub.limits.slowReaderGrace, on: environment.keepaliveClock) },
            abort: { channel.close(promise: nil) },
            onMissingEvent: { connection, number in Task { await hub.watchMissingEvent(number, on: connection) } })
        await hub.opened(connection)
        let handler = ConnectionHandler(hub: hub, connection: connection, checkedToken: nil)
        let keepaliveNow = environment.keepaliveElapsed
        let drain = await SocketFrameWriter.drain(connection.outbox, onto: channel) {
            connection.recordPong(at: keepaliveNow())
        } close: { code, reason in
            Self.sendClose(code: code, reason: reason, through: outbound, on: channel.eventLoop)
        }
        let watched = hub.keepalives.watch(connection)
        await handler.read(inbound)
        connection.finish()
        // The keepalive stops with the socket; the writer still sends what was queued before.
        hub.keepalives.forget(watched)
        await hub.disconnected(connection)
        await drain?.wait()
    }

    /// Sends a close frame through the WebSocket handler, whose close handshake it is; the future
    /// completes once it was sent (or could not be).
    private static func sendClose(
        code: Int, reason: String?, through outbound: WebSocketOutboundWriter, on eventLoop: any EventLoop
    ) -> EventLoopFuture<Void> {
        let sent = eventLoop.makePromise(of: Void.self)
        sent.completeWithTask {
            if code == ServerConnection.noStatusCode {
                // A close frame without a status code, which the peer reads as 1005.
                try? await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer())))
            } else {
                try? await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
            }
        }
        return sent.futureResult
    }

    /// A socket fell too far behind and was told to close: if its writer is still stuck on a
    /// peer that reads nothing after `grace`, the connection is closed under it.
    private static func closeIfStuck(_ channel: any Channel, after grace: Duration, on clock: any Clock<Duration>) {
        Task {
            try? await clock.sleep(for: grace)
            channel.close(promise: nil)
        }
    }

    /// Reads and handles the client's frames until either side closes the socket.
    private func read(_ inbound: WebSocketInboundStream) async {
        // Once authenticated, a socket stays so: the connection's lock is not taken to ask again.
        var authenticated = false
        do {
            for try await message in inbound.messages(maxSize: Self.hardFrameLimit) {
                guard case .text(let text) = message else {
                    connection.close(code: 1003, reason: "frames are JSON text")
                    return
                }
                let bytes = Array(text.utf8)
                guard bytes.count <= Clawline.Constants.maxFrameBytes else {
                    // As the spec says: answered, then closed (1009, message too big).
                    connection.sendError(.payloadTooLarge, "a frame is at most \(Clawline.Constants.maxFrameBytes) bytes")
                    connection.close(code: hub.faults.has(.frameLimitClosesWith1008) ? 1008 : 1009, reason: "frame too large")
                    return
                }
                if !authenticated {
                    // Pairing and authentication run deep (token checks, store calls, the replay),
                    // and a task keeps the largest stack it ever had until it ends: they run in a
                    // child task that ends with them, so an idle authenticated socket does not
                    // hold that stack for its whole life.
                    await withTaskGroup(of: Void.self) { group in group.addTask { await receive(bytes) } }
                    authenticated = connection.device != nil
                } else {
                    await receive(bytes)
                }
                if connection.isClosed { return }
            }
        } catch {
            logger.debug("socket ended", metadata: ["error": "\(error)"])
        }
    }

    /// Handles one received frame.
    func receive(_ bytes: [UInt8]) async {
        let bytes = hub.faults.cleanedUp(bytes)
        let result = ClientFrame.decode(bytes)
        let type = result.frame?.tag ?? "invalid"
        hub.metrics.received(type: type)
        if connection.logLevel <= .trace {
            logger.trace(
                "received", metadata: connection.logMetadata(type: type, text: String(decoding: bytes, as: UTF8.self), byteCount: bytes.count))
        }
        // An `auth` before authentication: its token decides whose rate window it counts in.
        var checkedToken: Result<DeviceClaims, TokenRejection>?
        if connection.device == nil, case .auth(let auth)? = result.frame { checkedToken = await checkToken(of: auth) }
        let named = Self.namedDevice(of: result.frame, bytes: bytes, token: checkedToken)
        let limiterKey = DeviceRateLimits.key(
            authenticated: connection.device?.deviceID, named: named?.deviceID, proven: named?.proven ?? true,
            address: connection.remoteAddress ?? connection.sessionID)
        let answeredCodes = result.answer?.code.map { [$0] } ?? []
        let violations = hub.faults.kept(
            hub.rateLimits.with(limiterKey, now: hub.environment.elapsed()) { limiter in
                connection.observeReceived(bytes, answeredCodes: answeredCodes, limiter: &limiter)
            })
        if let answer = result.answer {
            // A rule on violations (the third oversize frame) may close where the frame's own answer does not.
            let closing = violations.first { $0.answer?.closesConnection == true }?.answer
            var answer = closing ?? answer
            if hub.faults.has(.protocolVersionClosedWithoutCode), result.rejectionReason?.contains("protocolVersion") == true {
                answer.closeCode = ServerConnection.noStatusCode
            }
            self.answer(answer, reason: result.rejectionReason ?? "the frame is not valid")
            return
        }
        if let violation = violations.first(where: { $0.answer != nil }), let answer = violation.answer {
            if hub.faults.answersAsAuthResult(violation) {
                connection.send(.authResult(.failure(reason: AuthFailureReason(rawValue: ErrorCode.rateLimited.rawValue))))
                connection.close(code: 1008)
            } else {
                self.answer(answer, reason: violation.message)
            }
            return
        }
        guard case .decoded(let frame, _) = result else { return }
        var handler = self
        handler.checkedToken = checkedToken
        do {
            try await frame.dispatch(to: handler)
        } catch {
            logger.error("a frame could not be handled", metadata: ["error": "\(error)", "type": "\(frame.tag)"])
            connection.sendError(.serverError, "the server could not handle the frame")
            // An `auth` the provider could not answer (its store is down) would leave the socket
            // neither authenticated nor refused, and its client waiting: it closes with the spec's
            // code for `server_error` (1011), and the client reconnects with backoff.
            if case .auth = frame { connection.close(code: 1011) }
        }
    }

    /// Sends what the spec answers a rejected frame: its error (if it has one), then the close.
    private func answer(_ answer: ViolationAnswer, reason: String) {
        let answer = hub.faults.answer(answer)
        if let code = answer.code { connection.sendError(ErrorCode(rawValue: code), reason) }
        if answer.closesConnection || answer.code == nil { connection.close(code: answer.closeCode ?? 1008) }
    }

    /// What the token of `auth` proves: its claims when it is genuine, unexpired and issued to the
    /// device the frame names. The one place an `auth`'s token is verified.
    private func checkToken(of auth: Auth) async -> Result<DeviceClaims, TokenRejection> {
        let (tokens, now) = (hub.tokens, hub.environment.now())
        do throws(TokenRejection) {
            return .success(try await tokens.verify(auth.token, deviceID: auth.deviceId.rawValue, now: now))
        } catch {
            return .failure(error)
        }
    }

    /// The device an unauthenticated frame names, for its rate windows, and whether the frame is
    /// the device's own attempt; `nil` for the address's windows:
    ///
    /// - a `pair_request` counts for the device it names (the spec's per-device limit), even when
    ///   another of its fields is broken;
    /// - an `auth` is the device's own attempt only when its token was issued to that device
    ///   (expired or not). A token that does not verify proves nothing about the device, so its
    ///   failure counts apart, for the name from this address, and a stranger behind the victim's
    ///   own NAT cannot spend the victim's `auth` window. So does an `auth` that did not decode.
    ///
    /// Only frames that failed to decode are parsed again.
    private static func namedDevice(
        of frame: ClientFrame?, bytes: [UInt8], token: Result<DeviceClaims, TokenRejection>?
    ) -> (deviceID: String, proven: Bool)? {
        switch frame {
        case .pairRequest(let request)?: return (request.deviceId.rawValue, true)
        case .auth(let auth)?:
            switch token {
            case .success?, .failure(.expired)?: return (auth.deviceId.rawValue, true)
            default: return (auth.deviceId.rawValue, false)
            }
        case nil:
            guard case .object(let members)? = try? JSONParser.parse(bytes), case .string(let tag)? = members["type"],
                tag == "pair_request" || tag == "auth", case .string(let deviceID)? = members["deviceId"], WireFormats.isUUIDv4(deviceID)
            else { return nil }
            return (deviceID, tag == "pair_request")
        default: return nil
        }
    }

    // MARK: ClientFrameHandler

    func handlePairRequest(_ message: PairRequest) async throws {
        try await hub.pair(message, on: connection)
    }

    func handleAuth(_ message: Auth) async throws {
        let token = if let checkedToken { checkedToken } else { await checkToken(of: message) }
        try await hub.authenticate(message, checkedToken: token, on: connection)
    }

    func handlePairDecision(_ message: PairDecision) async throws {
        guard let device = connection.device else { return }
        try await hub.decide(message, by: device, on: connection)
    }

    func handleMessage(_ message: ClientMessage) async throws {
        guard let device = connection.device else { return }
        if hub.faults.has(.refusesValidMessages) { return connection.sendError(.invalidMessage, "refused (a fault under test)") }
        let arrived = ContinuousClock.now
        if await hub.receive(message, from: device, on: connection) {
            hub.metrics.acknowledged(after: arrived.duration(to: .now))
        }
    }

    /// User typing is accepted and not relayed to other devices (v1).
    func handleTyping(_ message: ClientTyping) async throws {}
}
