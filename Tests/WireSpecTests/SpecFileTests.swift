import Foundation
import Testing

@testable import WireSpec

/// Reading a spec file: every byte of it, however large, and a clear reason when it cannot be read.
@Suite struct SpecFileTests {
    private static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spec-file-\(UUID().uuidString).yaml").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aFileReadsAsItsText() throws {
        let text = try String(contentsOfFile: ClawlineSpecTests.specPath, encoding: .utf8)
        // Comments past the first chunk of 64 KiB make the file span several reads.
        let long = text + String(repeating: "# a comment line that makes the file long, with ünïcödé in it\n", count: 3_000)
        let path = try Self.temporaryFile(Array(long.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = try SpecLoader.check(contentsOf: path)
        let fromText = SpecLoader.check(yaml: long, file: path)
        #expect(long.utf8.count > 3 * 65_536)
        #expect(fromFile.spec != nil)
        #expect(fromFile.diagnostics.map(\.description) == fromText.diagnostics.map(\.description))
        #expect(try fromFile.get().messages.count == fromText.get().messages.count)
    }

    @Test func unreadableFilesSayWhy() throws {
        #expect(throws: SpecFileError.self) { try SpecLoader.check(contentsOf: "no/such/spec.yaml") }
        do {
            _ = try SpecLoader.check(contentsOf: "no/such/spec.yaml")
        } catch {
            #expect(error.description == "cannot read spec 'no/such/spec.yaml': no such file")
        }
        let notUTF8 = try Self.temporaryFile(Array("protocol: x\n".utf8) + [0xC3, 0x28, 0x0A])
        defer { try? FileManager.default.removeItem(atPath: notUTF8) }
        do {
            _ = try SpecLoader.check(contentsOf: notUTF8)
            Issue.record("a file that is not UTF-8 was read")
        } catch {
            #expect(error.reason == "the file is not valid UTF-8")
        }
        let directory = FileManager.default.temporaryDirectory.path
        do {
            _ = try SpecLoader.check(contentsOf: directory)
            Issue.record("a directory was read as a spec")
        } catch {
            #expect(error.path == directory && !error.reason.isEmpty)
        }
    }
}
