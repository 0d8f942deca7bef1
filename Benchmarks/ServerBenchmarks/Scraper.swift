import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads `GET /metrics` once a second, as Prometheus would, on a thread of its own (plain
/// blocking HTTP/1.1 over a socket), so the cost of rendering the scrape is part of the run.
final class Scraper: Sendable {
    private let port: Int
    private let stopped = NIOLockedValueBox(false)
    /// Scrapes that returned a body with the provider's metrics.
    private let completed = NIOLockedValueBox(0)

    init(port: Int) {
        self.port = port
        let thread = Thread { [self] in
            while !stopped.withLockedValue({ $0 }) {
                if let body = scrape(), body.contains("clawline_frames_received_total") { completed.withLockedValue { $0 += 1 } }
                Thread.sleep(forTimeInterval: 1)
            }
        }
        thread.start()
    }

    /// How many scrapes succeeded so far.
    var scrapes: Int { completed.withLockedValue { $0 } }

    func stop() { stopped.withLockedValue { $0 = true } }

    private func scrape() -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard write(descriptor, request, request.count) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        return String(decoding: response, as: UTF8.self)
    }
}
