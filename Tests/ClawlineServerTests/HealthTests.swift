import Foundation
import Testing

@testable import ClawlineServer

/// `/healthz` and `/readyz`, as a load balancer polls them.
@Suite struct HealthTests {
    @Test("healthz answers while the process serves; readyz answers ready, then 503 with the reason once the node drains")
    func healthAndReadiness() async throws {
        try await TestServer.run { server in
            let health = try await server.http("GET", "/healthz")
            #expect(health.status == 200 && health.body == #"{"status":"ok"}"#)
            let ready = try await server.http("GET", "/readyz")
            #expect(ready.status == 200 && ready.body == #"{"status":"ready"}"#)
            #expect(ready.contentType == "application/json")
            await server.hub.beginDrain()
            let draining = try await server.http("GET", "/readyz")
            #expect(draining.status == 503 && draining.body == #"{"reason":"the node is draining","status":"unavailable"}"#)
            #expect(try await server.http("GET", "/healthz").status == 200, "a draining node is still alive")
        }
    }

    @Test("readyz answers 503 when the store does not answer")
    func readinessFollowsTheStore() async throws {
        try await TestServer.run(wrapStore: { HookedStore(base: $0, deviceLookup: { throw HookedStore.DiskFull() }) }) { server in
            let answer = try await server.http("GET", "/readyz")
            #expect(answer.status == 503 && answer.body.contains("the store does not answer"))
        }
    }
}
