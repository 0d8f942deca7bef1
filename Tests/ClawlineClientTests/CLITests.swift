import Foundation
import Testing
import WireTestSupport

@Suite("The clawline terminal client against the reference server")
struct CLITests {
    @Test("pair, send, approvals, chat and history, with one-line errors")
    func terminalClient() async throws {
        try await Harness.run { harness in
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let phone = ["--state-dir", root.appendingPathComponent("phone").path]
            let tablet = ["--state-dir", root.appendingPathComponent("tablet").path]
            let server = harness.serverURL.absoluteString

            let paired = try await CLIProcess.run(["pair", "--server", server, "--name", "Phone"] + phone)
            #expect(paired.status == 0 && paired.output.contains("paired as an admin"), "\(paired)")
            let sent = try await CLIProcess.run(["send", "hello there"] + phone)
            #expect(sent.status == 0 && sent.output.contains("assistant: Echo: hello there"), "\(sent)")

            let waiting = try CLIProcess.start(["pair", "--server", server, "--name", "Tablet"] + tablet)
            #expect(await waiting.waitForOutput { $0.contains("waiting for an admin") })
            let tabletID = try String(contentsOf: root.appendingPathComponent("tablet/device-id"), encoding: .utf8)
            let listed = try await CLIProcess.run(["approvals"] + phone)
            #expect(listed.status == 0 && listed.output.contains("\(tabletID)  Tablet"), "\(listed)")
            let approved = try await CLIProcess.run(["approvals", "approve", tabletID] + phone)
            #expect(approved.status == 0 && approved.output.contains("approved \(tabletID)"), "\(approved)")
            #expect(try await waiting.wait() == 0)
            #expect(waiting.standardOutput.contains("paired as a member"))

            let chat = try await CLIProcess.run(["chat"] + tablet, input: "from the tablet\n")
            #expect(chat.status == 0 && chat.output.contains("assistant: Echo: from the tablet"), "\(chat)")
            #expect(chat.output.contains("assistant: Echo: hello there"), "the tablet's chat shows the account's history")
            let history = try await CLIProcess.run(["history", "--sync"] + phone)
            #expect(history.status == 0, "\(history)")
            #expect(history.output.contains("you: hello there") && history.output.contains("user: from the tablet"), "\(history)")

            let notAdmin = try await CLIProcess.run(["approvals"] + tablet)
            #expect(notAdmin.status != 0 && notAdmin.errors.contains("this device is not an admin"), "\(notAdmin)")
            let unpaired = try await CLIProcess.run(["send", "x", "--state-dir", root.appendingPathComponent("nobody").path])
            #expect(unpaired.status != 0 && unpaired.errors.contains("not paired yet: run `clawline pair"), "\(unpaired)")
        }
    }
}
