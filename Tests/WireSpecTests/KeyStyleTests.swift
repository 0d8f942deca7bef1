import Foundation
import Testing
import WireTestSupport

@testable import WireSpec

/// A key style admits exactly the names its regular expression matches.
@Suite struct KeyStyleTests {
    static let expressions: [KeyStyle: String] = [
        .camelCase: "^[a-z][a-zA-Z0-9]*$", .snakeCase: "^[a-z][a-z0-9]*(_[a-z0-9]+)*$", .mixed: "^[A-Za-z_][A-Za-z0-9_]*$",
    ]

    static func expressionAdmits(_ style: KeyStyle, _ name: String) -> Bool {
        name.range(of: expressions[style]!, options: .regularExpression) != nil
    }

    @Test(arguments: [KeyStyle.camelCase, .snakeCase, .mixed])
    func admitsWhatItsExpressionMatches(_ style: KeyStyle) {
        let named = ["deviceId", "device_id", "lastSeen2", "a", "A", "_x", "x_", "x__y", "2x", "", "socket_sequence", "eventId", "é", "a-b"]
        for name in named {
            #expect(style.admits(name) == Self.expressionAdmits(style, name), "\(style) on '\(name)'")
        }
        let alphabet = Array("aZ0_-")
        var generator = SplitMix64.forTest(seed: 0x4B45_5953)
        var admitted = 0
        for _ in 0..<3_000 {
            let name = String((0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(style.admits(name) == Self.expressionAdmits(style, name), "\(style) on '\(name)'")
            if style.admits(name) { admitted += 1 }
        }
        #expect(admitted > 50, "some random names follow \(style)")
    }
}
