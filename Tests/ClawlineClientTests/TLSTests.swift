import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Native TLS end to end: `clawline-server` with a certificate a private CA issued (made in the
/// test), the terminal client and the client library over `wss://` and `https://`.
@Suite("Native TLS") struct TLSTests {
    @Test("the server speaks wss:// and https://; clients that trust the CA pair and chat, others are refused")
    func privateCA() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let node = try NodeProcess(["--tls-cert", certificates.certificateFile, "--tls-key", certificates.keyFile, "--metrics-port", "0"])
        let url = try await node.baseURL()
        #expect(url.scheme == "https")
        let server = "https://localhost:\(url.port ?? 0)"
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-tls-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }

        let untrusted = try await CLIProcess.run([
            "pair", "--server", server, "--name", "Stranger", "--state-dir", root.appendingPathComponent("x").path,
        ])
        #expect(untrusted.status != 0 && untrusted.errors.lowercased().contains("certificate"), "\(untrusted)")

        let phone = ["--state-dir", root.appendingPathComponent("phone").path]
        let paired = try await CLIProcess.run(["pair", "--server", server, "--name", "Phone", "--ca-file", certificates.caFile] + phone)
        #expect(paired.status == 0 && paired.output.contains("paired as an admin"), "\(paired)")
        let sent = try await CLIProcess.run(["send", "over tls"] + phone)
        #expect(sent.status == 0 && sent.output.contains("assistant: Echo: over tls"), "\(sent)")

        // The library: version over https with the NIO exchange, and a plain http client refused.
        let http = ProviderHTTPClient(baseURL: URL(string: server)!, exchange: NIOHTTPExchange(trustedCAFile: certificates.caFile))
        #expect(try await http.protocolVersion() == Clawline.Constants.protocolVersion)
        let plain = ProviderHTTPClient(baseURL: URL(string: "http://127.0.0.1:\(url.port ?? 0)")!, exchange: NIOHTTPExchange())
        await #expect(throws: (any Error).self) { _ = try await plain.protocolVersion() }

        let metrics = try await NIOHTTPExchange().send(URLRequest(url: try await node.metricsURL()))
        let body = String(decoding: metrics.0, as: UTF8.self)
        #expect(body.contains(#"clawline_frames_received_total{type="message"} 1"#), "\(body)")

        let ended = try await node.terminate()
        #expect(ended.status == 0, "SIGTERM ends the node cleanly: \(node.standardError)")
    }

    /// A provider on a LAN or a VPN is often reached by address. TLS forbids an IP address as the
    /// server name (RFC 6066, section 3), so none is sent and the certificate's IP address is checked.
    @Test("A provider reached by IP address: no server name is sent, and the certificate must name the address", arguments: [true, false])
    func reachedByAddress(certificateNamesTheAddress: Bool) async throws {
        let certificates = try TestCertificates(namingTheAddress: certificateNamesTheAddress)
        defer { certificates.remove() }
        let node = try NodeProcess(["--tls-cert", certificates.certificateFile, "--tls-key", certificates.keyFile])
        let port = try await node.baseURL().port ?? 0
        let server = "https://127.0.0.1:\(port)"
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-tls-ip-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let phone = ["--state-dir", root.appendingPathComponent("phone").path]

        // The terminal client: pairing over https:// and wss://, then a message and its answer.
        let paired = try await CLIProcess.run(["pair", "--server", server, "--name", "Phone", "--ca-file", certificates.caFile] + phone)
        guard certificateNamesTheAddress else {
            // A certificate for localhost only does not prove it is 127.0.0.1's.
            #expect(paired.status != 0 && paired.errors.lowercased().contains("certificate"), "\(paired)")
            #expect(!paired.errors.contains("SNI"), "\(paired)")
            return
        }
        #expect(paired.status == 0 && paired.output.contains("paired as an admin"), "\(paired)")
        let sent = try await CLIProcess.run(["send", "over tls by address"] + phone)
        #expect(sent.status == 0 && sent.output.contains("assistant: Echo: over tls by address"), "\(sent)")

        // The library's HTTP exchange by address.
        let http = ProviderHTTPClient(baseURL: URL(string: server)!, exchange: NIOHTTPExchange(trustedCAFile: certificates.caFile))
        #expect(try await http.protocolVersion() == Clawline.Constants.protocolVersion)

        _ = try await node.terminate()

        // The conformance kit by address (its connectors are wire probe's), on a fresh node: the
        // transfer cases' https:// requests trust --ca-file too.
        let fresh = try NodeProcess(["--tls-cert", certificates.certificateFile, "--tls-key", certificates.keyFile])
        let freshPort = try await fresh.baseURL().port ?? 0
        let checked = try await CLIProcess.run([
            "conformance", "wss://127.0.0.1:\(freshPort)/ws", "--ca-file", certificates.caFile, "--only", "chat.ack-then-echo", "--only",
            "transfer.",
        ])
        #expect(checked.status == 0 && checked.output.contains("5 passed"), "\(checked)")
        _ = try await fresh.terminate()
    }
}
