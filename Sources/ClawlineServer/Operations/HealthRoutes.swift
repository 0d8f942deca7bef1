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
    /// How long `/readyz` waits for the store: a database behind a network that drops packets
    /// never answers and never fails, and an orchestrator's probe must hear "not ready" first.
    static let readinessStoreLimit = Duration.seconds(2)

    /// Ready when the node is not draining, its store answers (within
    /// ``readinessStoreLimit``, in real time), and (with other nodes) it listens to them.
    func readiness() async -> Readiness {
        if draining.isSet { return .notReady("the node is draining") }
        let store = store
        // The call is left to end by itself if it outlives the limit: a store call on a dead
        // network does not end when cancelled.
        let bound = BoundedStoreCall(limit: Self.readinessStoreLimit, clock: ContinuousClock())
        let outcome = await bound.run({ _ = try await store.device("readiness-probe") }, late: { _ in })
        switch outcome {
        case .finished(.failure): return .notReady("the store does not answer")
        case .late: return .notReady("the store did not answer within \(Self.readinessStoreLimit)")
        case .finished(.success): break
        }
        if let cluster, !(await cluster.isListening) { return .notReady("the node is not listening to the other nodes") }
        return .ready
    }
}
