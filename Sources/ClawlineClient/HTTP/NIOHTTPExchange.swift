// Built with the package trait NIOTransport (which Server enables), like WSClientTransport.
#if NIOTransport
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// ``HTTPExchange`` over SwiftNIO, HTTP/1.1, one connection per request: `https://` with
    /// swift-nio-ssl, trusting `trustedCAFile` besides the system's roots. Use it where
    /// `URLSession` cannot trust a private CA (Linux); with the trait `NIOTransport` it is
    /// ``PlatformHTTPExchange``'s default.
    ///
    /// A request's `timeoutInterval` bounds the whole exchange, connecting included, as it bounds
    /// a `URLSession` task: a provider that has not answered by then is disconnected, and the
    /// request fails saying so.
    public struct NIOHTTPExchange: HTTPExchange {
        /// A PEM file of certificate authorities trusted besides the system's.
        public var trustedCAFile: String?
        /// The largest response body read; a larger one fails the request.
        public var maxBodyBytes: Int

        /// An exchange trusting `trustedCAFile`, reading bodies of at most `maxBodyBytes`.
        public init(trustedCAFile: String? = nil, maxBodyBytes: Int = 64 << 20) {
            self.trustedCAFile = trustedCAFile
            self.maxBodyBytes = maxBodyBytes
        }

        /// What went wrong with a request.
        public struct Failure: Error, CustomStringConvertible {
            public var description: String
        }

        public func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
            guard let url = request.url, let host = url.host, let scheme = url.scheme, scheme == "http" || scheme == "https" else {
                throw Failure(description: "\(request.url?.absoluteString ?? "no URL"): only http:// and https:// URLs are supported")
            }
            let secure = scheme == "https"
            let port = url.port ?? (secure ? 443 : 80)
            let tls: NIOSSLContext? =
                secure
                ? try NIOSSLContext(configuration: WSClientTransport.tlsConfiguration(trusting: trustedCAFile)) : nil
            let timeout = Self.timeout(of: request)
            let deadline = ContinuousClock.now + timeout
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(TimeAmount(timeout)).connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            // No server name for an IP address (RFC 6066): the certificate's IP address is checked instead.
                            let serverName = NIOWebSocketDialer.ipLiteral(of: url) == nil ? host : nil
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
            // Past the deadline the connection is closed, which ends the exchange below.
            let expiry = channel.channel.eventLoop.scheduleTask(in: TimeAmount(deadline - .now)) { channel.channel.close(promise: nil) }
            defer { expiry.cancel() }
            do {
                return try await exchange(request, url: url, host: host, port: port, over: channel)
            } catch let failure as Failure {
                throw failure
            } catch  where ContinuousClock.now >= deadline {
                // The scheduled close (or the connection's own error) ended it past the deadline.
                throw Self.timedOut(url, after: timeout)
            } catch let early as ClosedEarly {
                throw early.failure(for: url)
            }
        }

        /// Writes `request` on `channel` and reads the response, until the connection closes;
        /// throws ``ClosedEarly`` when it closes with no whole response.
        private func exchange(
            _ request: URLRequest, url: URL, host: String, port: Int,
            over channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        ) async throws -> (Data, URLResponse) {
            try await channel.executeThenClose { inbound, outbound in
                // The request goes out as one write and one flush. A server may answer and close
                // before it has read all of it (the request asks it to close, and a provider
                // answers an oversized upload at once), so a failed write is only the error when
                // no whole response arrives.
                var parts: [HTTPClientRequestPart] = [.head(Self.head(of: request, url: url, host: host, port: port))]
                if let body = request.httpBody { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                parts.append(.end(nil))
                var writeFailure: (any Error)?
                do { try await outbound.write(contentsOf: parts) } catch { writeFailure = error }
                var response: HTTPResponseHead?
                var body = Data()
                for try await part in inbound {
                    switch part {
                    case .head(let head): response = head
                    case .body(let bytes):
                        guard body.count + bytes.readableBytes <= maxBodyBytes else {
                            throw Failure(description: "\(url.absoluteString): the response body is larger than \(maxBodyBytes) bytes")
                        }
                        body.append(contentsOf: bytes.readableBytesView)
                    case .end:
                        guard let response else { break }
                        let fields = Dictionary(response.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
                        guard
                            let answer = HTTPURLResponse(
                                url: url, statusCode: Int(response.status.code), httpVersion: "HTTP/1.1", headerFields: fields)
                        else { throw Failure(description: "\(url.absoluteString): the response could not be read") }
                        return (body, answer)
                    }
                }
                throw ClosedEarly(writeFailure: writeFailure)
            }
        }

        /// The connection closed before a whole response came: the peer's doing, or the deadline's
        /// (``send(_:)`` tells which).
        private struct ClosedEarly: Error {
            /// Why the request could not be written, if it could not.
            let writeFailure: (any Error)?

            func failure(for url: URL) -> Failure {
                if let writeFailure {
                    return Failure(description: "\(url.absoluteString): the request could not be sent (\(writeFailure))")
                }
                return Failure(description: "\(url.absoluteString): the connection closed before the response ended")
            }
        }

        /// The failure of a request that had no whole response by its deadline.
        private static func timedOut(_ url: URL, after timeout: Duration) -> Failure {
            Failure(description: "\(url.absoluteString): no whole response within \(timeout) (the request's timeoutInterval)")
        }

        /// The request's `timeoutInterval` (60 s unless set), at least a millisecond.
        static func timeout(of request: URLRequest) -> Duration {
            let seconds = request.timeoutInterval.isFinite ? max(request.timeoutInterval, 0.001) : 60
            return .milliseconds(Int64(seconds * 1000))
        }

        private static func head(of request: URLRequest, url: URL, host: String, port: Int) -> HTTPRequestHead {
            var path = url.path.isEmpty ? "/" : url.path
            if let query = url.query { path += "?" + query }
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: url.port == nil ? host : "\(host):\(port)")
            for (name, value) in request.allHTTPHeaderFields ?? [:] { headers.add(name: name, value: value) }
            headers.add(name: "Content-Length", value: "\(request.httpBody?.count ?? 0)")
            headers.add(name: "Connection", value: "close")
            return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), uri: path, headers: headers)
        }
    }
#endif
