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
}
