import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// `GET /metrics`: the provider's metrics in the Prometheus text format, as a scraper reads them.
@Suite struct MetricsTests {
    @Test("/metrics reports sockets by phase, frames by type, errors by code, ack latency, replay sizes and commits")
    func metricsFollowTheTraffic() async throws {
        try await TestServer.run(configure: { $0.metricsEndpoint = .publicListener }) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "hello")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            _ = try await socket.next()
            _ = try await TestServer.readAnswer(on: socket)
            socket.send(text: #"{"type":"message","id":"c_2"}"#)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .invalidMessage)
            let unauthenticated = server.socket()
            // A marker: the server has answered this socket, so it counts it as open.
            unauthenticated.send(.pairDecision(PairDecision(deviceId: TestServer.newDeviceID(), approve: false, userId: device.userID)))
            guard case .error(let refusal) = try await unauthenticated.next(), refusal.code == .invalidMessage else {
                throw TestFailure("expected invalid_message")
            }

            let scrape = try await server.http("GET", "/metrics")
            #expect(scrape.status == 200 && scrape.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
            let metrics = Scrape(scrape.body)
            #expect(metrics["clawline_sockets", "phase=\"authenticated\""] == 1)
            #expect(metrics["clawline_sockets", "phase=\"unauthenticated\""] == 1)
            #expect(metrics["clawline_frames_received_total", "type=\"message\""] == 1)
            #expect(metrics["clawline_frames_received_total", "type=\"invalid\""] == 1)
            #expect(metrics["clawline_frames_received_total", "type=\"auth\""] == 1)
            #expect(metrics["clawline_frames_received_total", "type=\"pair_decision\""] == 1)
            #expect(metrics["clawline_frames_sent_total", "type=\"ack\""] == 1)
            #expect(metrics["clawline_frames_sent_total", "type=\"pair_result\""] == 1)
            #expect(metrics["clawline_error_answers_total", "code=\"invalid_message\""] == 2)
            #expect(metrics["clawline_ack_latency_seconds_count"] == 1)
            #expect(metrics["clawline_store_commit_seconds_count"] == 1)
            #expect(metrics["clawline_replay_events_count"] == 1 && metrics["clawline_replay_events_sum"] == 0)
            #expect((metrics["clawline_store_commit_batch_size_count"] ?? 0) >= 1)
            #expect(metrics["clawline_answer_queue_depth"] == 0)
            #expect(metrics["clawline_pairing_requests_pending"] == 0)
            for metric in ProviderMetric.allCases where metric != .clusterDeliveryLag {
                #expect(scrape.body.contains("# HELP \(metric.name) \(metric.help)"), "\(metric.name) has its help line")
                #expect(scrape.body.contains("# TYPE \(metric.name) \(metric.kind.rawValue)"), "\(metric.name) has its type")
            }
        }
    }

    @Test("docs/operating.md's metrics table lists every metric the provider reports, with its type and label")
    func readmeListsEveryMetric() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/operating.md")
        let rows = try String(contentsOf: readme, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("| `clawline_") }
        #expect(rows.count == ProviderMetric.allCases.count)
        for metric in ProviderMetric.allCases {
            let row = "| `\(metric.name)` | \(metric.kind.rawValue) |" + (metric.label.map { " `\($0)` |" } ?? " |")
            #expect(rows.contains { $0.hasPrefix(row) }, "docs/operating.md has the row \(row)")
        }
    }

    @Test("/metrics is not on the public listener unless asked")
    func metricsAreNotPublicByDefault() async throws {
        try await TestServer.run { server in
            let status = try await server.http("GET", "/metrics").status
            #expect(status == 404)
        }
    }

    @Test("a pairing request waiting for an admin is counted, and the answers in progress")
    func gaugesFollowTheHub() async throws {
        let gate = GatedAssistant()
        try await TestServer.run(assistant: gate, configure: { $0.metricsEndpoint = .publicListener }) { server in
            let admin = try await server.pair()
            let (socket, _) = try await server.connect(admin)
            let pairing = server.socket()
            pairing.send(.pairRequest(PairRequest(deviceId: TestServer.newDeviceID(), claimedName: "Tablet", deviceInfo: TestServer.deviceInfo)))
            guard case .pairApprovalRequest = try await socket.next() else { throw TestFailure("expected an approval request") }
            socket.send(.message(ClientMessage(id: "c_1", content: "hello")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            let metrics = Scrape(try await server.http("GET", "/metrics").body)
            #expect(metrics["clawline_pairing_requests_pending"] == 1)
            #expect(metrics["clawline_answer_queue_depth"] == 1)
            gate.open()
        }
    }
}

/// The samples of a Prometheus text exposition, by name and labels.
struct Scrape {
    private var samples: [String: Double] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
    }

    /// The sample of `name` with exactly the labels `labels` (`key="value"`, comma-separated), or none.
    subscript(_ name: String, _ labels: String = "") -> Double? {
        samples[labels.isEmpty ? name : "\(name){\(labels)}"]
    }
}
