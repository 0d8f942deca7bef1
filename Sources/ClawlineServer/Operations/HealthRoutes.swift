import Foundation
import Hummingbird

/// The endpoints a load balancer or orchestrator polls: `GET /healthz` (the process is alive and
/// serving HTTP) and `GET /readyz` (it should get new connections). Both answer JSON,
/// `{"status":"…"}`, with a `reason` when not ready.
struct HealthRoutes {
    let hub: ProviderHub

    func register(on router: Router<some RequestContext>) {
        router.get("/healthz") { _, _ in Self.answer(status: "ok") }
        router.get("/readyz") { _, _ in
            switch await hub.readiness() {
            case .ready: Self.answer(status: "ready")
            case .notReady(let reason): Self.answer(status: "unavailable", reason: reason, code: .serviceUnavailable)
            }
        }
    }

    private static func answer(status: String, reason: String? = nil, code: HTTPResponse.Status = .ok) -> Response {
        var fields = ["status": status]
        fields["reason"] = reason
        let body = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        return HTTPResponses.json(Array(body), status: code)
    }
}

/// Whether a node should get new connections.
enum Readiness: Sendable, Equatable {
    case ready
    /// Not now, and why (draining, the store does not answer, not listening to the other nodes).
    case notReady(String)
}

extension ProviderHub {
    /// Ready when the node is not draining, its store answers, and (with other nodes) it listens
    /// to them.
    func readiness() async -> Readiness {
        if draining.isSet { return .notReady("the node is draining") }
        do {
            _ = try await store.device("readiness-probe")
        } catch {
            return .notReady("the store does not answer")
        }
        if let cluster, !(await cluster.isListening) { return .notReady("the node is not listening to the other nodes") }
        return .ready
    }
}
