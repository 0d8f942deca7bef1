import ClawlineProtocol
import Foundation
import Testing

/// Named string types are types of their own: the wire form is the bare string, `Codable` checks
/// the spec's rules, and one kind of identifier cannot be passed for another (that last part is a
/// compile-time check: Tests/PublicSurface/typed-ids-mixed.swift, run by Scripts/check-public-surface).
@Suite struct TypedIdentifierTests {
    let device: DeviceId = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"

    @Test func theWireFormIsTheBareString() throws {
        let auth = ClientFrame.auth(Auth(token: "t", deviceId: device, lastMessageId: .value("s_1")))
        let expected = #"{"deviceId":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f","lastMessageId":"s_1","protocolVersion":1,"token":"t","type":"auth"}"#
        #expect(auth.encodedText() == expected)
        guard case .decoded(.auth(let decoded), _) = ClientFrame.decode(text: auth.encodedText()) else {
            Issue.record("the frame did not decode")
            return
        }
        #expect(decoded.deviceId == device && decoded.deviceId.rawValue == device.description)
    }

    @Test func codableIsABareStringWithTheSpecsChecks() throws {
        let encoded = try JSONEncoder().encode([device])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"]"#)
        #expect(try JSONDecoder().decode([DeviceId].self, from: encoded) == [device])
        // A device id is a version 4 UUID and a client message id starts with c_: Codable refuses others.
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DeviceId].self, from: Data(#"["not-a-uuid"]"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ClientMessageId].self, from: Data(#"["s_1"]"#.utf8)) }
    }

    @Test func literalsInterpolationAndHashing() {
        let number = 7
        let message: ClientMessageId = "c_\(number)"
        #expect(message == ClientMessageId(rawValue: "c_7") && message == ClientMessageId("c_7"))
        #expect(Set<ServerEventId>(["s_1", "s_1", "s_2"]).count == 2)
        #expect("\(UserId("user_1"))" == "user_1")
    }

    @Test func aNameIsTextNotAnIdentifier() {
        // ClaimedName opts out with `distinct: false`: it stays a String.
        let name: ClaimedName = String(repeating: "a", count: 3)
        #expect(PairRequest(deviceId: device, claimedName: name, deviceInfo: DeviceInfo(platform: "iOS", model: "x")).claimedName == "aaa")
    }
}
