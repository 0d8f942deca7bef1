import ClawlineClient
import ClawlineProtocol
import Foundation
import TelemetryProtocol

// Build a Clawline frame and a Telemetry report, encode them, and decode a reply of each.
let auth = ClawlineProtocol.ClientFrame.auth(Auth(token: "jwt", deviceId: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"))
print(auth.encodedText())

let report = TelemetryProtocol.ClientFrame.report(
    Report(
        device: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
        samples: [Sample(metric: "cpu.load", value: 0.42, at: 1_704_672_000_000)]
    ))
print(report.encodedText())

switch TelemetryProtocol.ServerFrame.decode(text: #"{"type":"accepted","count":1}"#) {
case .decoded(.accepted(let accepted), _):
    print("collector kept \(accepted.count) sample(s)")
case let other:
    print("rejected: \(other.rejectionReason ?? "?")")
}

// The client's default transport without a trait: URLSession on Apple platforms; on Linux it says
// which trait brings one.
do {
    _ = try await PlatformTransport.make().connect(to: URL(string: "ws://127.0.0.1:9/ws")!)
    print("transport: connected")
} catch {
    print("transport: \(error)")
}
