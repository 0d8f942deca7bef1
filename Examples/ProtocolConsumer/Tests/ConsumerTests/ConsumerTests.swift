import ClawlineProtocol
import TelemetryProtocol
import Testing

@Suite struct ConsumerTests {
    @Test func ownSpecIsGeneratedAndValidated() {
        let good = TelemetryProtocol.ClientFrame.decode(
            text:
                #"{"type":"report","device":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f","samples":[{"metric":"cpu.load","value":0.5,"at":1704672000000}]}"#
        )
        #expect(
            good.frame
                == .report(
                    Report(device: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", samples: [Sample(metric: "cpu.load", value: 0.5, at: 1_704_672_000_000)])))
        let bad = TelemetryProtocol.ClientFrame.decode(text: #"{"type":"report","device":"d1","samples":[{"metric":"CPU","value":"high","at":1}]}"#)
        #expect(
            bad.issues.map { "\($0.path) \($0.rule) \($0.code)" } == [
                "$.device format bad_report", "$.samples[0].metric pattern bad_report", "$.samples[0].value type bad_report",
            ])
        #expect(Telemetry.transportPath == "/ingest")
    }

    @Test func clawlineProtocolIsUsable() {
        let frame = ClawlineProtocol.ServerFrame.decode(text: #"{"type":"ack","id":"c_1"}"#).frame
        #expect(frame == .ack(Ack(id: "c_1")))
        // Both modules generate an `ErrorCode`; the module name tells them apart.
        #expect(ClawlineProtocol.ErrorCode.rateLimited.httpStatus == 429)
        #expect(TelemetryProtocol.ErrorCode.allCases.map(\.rawValue).contains("bad_report"))
    }
}
