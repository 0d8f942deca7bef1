import Foundation
import Testing
import WireCodegen
import WireSpec
import WireTestSupport

/// The published reference in docs/ is regenerated and compared byte for byte, so it can never
/// drift from the spec; the fixture's docs are golden files too. Refresh with `UPDATE_GOLDEN=1 swift test`.
@Suite struct DocsGoldenTests {
    static let root = Golden.repositoryRoot()
    static let frames = "Tests/ClawlineProtocolTests/Frames"

    static func generate(_ spec: String, _ format: String, examples: String?) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("wire-docs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await WireTool.run(["docs", spec, "--format", format, "--output", output.path] + (examples.map { ["--examples", $0] } ?? []))
        #expect(run.status == 0, "\(run.stderr)")
        let name = URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent + (format == "markdown" ? ".md" : ".html")
        return try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
    }

    @Test(arguments: ["markdown", "html"])
    func publishedClawlineReferenceIsCurrent(_ format: String) async throws {
        let text = try await Self.generate("Spec/clawline.yaml", format, examples: Self.frames)
        Golden.check(text, against: Self.root.appendingPathComponent("docs/clawline.\(format == "markdown" ? "md" : "html")").path)
    }

    @Test(arguments: ["markdown", "html"])
    func fixtureReference(_ format: String) async throws {
        let text = try await Self.generate("Tests/Fixtures/everything.yaml", format, examples: nil)
        Golden.check(
            text,
            against: Self.root.appendingPathComponent("Tests/WireCodegenTests/Golden/Everything/everything.\(format == "markdown" ? "md" : "html")")
                .path)
    }

    @Test(arguments: ["markdown", "html"])
    func everyElementOfTheSpecAppears(_ format: String) async throws {
        let spec = try SpecLoader.check(contentsOf: Self.root.appendingPathComponent("Spec/clawline.yaml").path).get()
        let text = try await Self.generate("Spec/clawline.yaml", format, examples: Self.frames)
        func anchor(_ id: String) -> String { format == "markdown" ? "<a id=\"\(id)\"></a>" : "id=\"\(id)\"" }
        var missing: [String] = []
        for message in spec.messages {
            let owner = "\(message.direction.rawValue)-\(message.tag.replacingOccurrences(of: "_", with: "-"))"
            if !text.contains(anchor(owner)) { missing.append(owner) }
            for field in message.shape.fields where !text.contains(anchor("\(owner)-\(field.name.lowercased())")) {
                missing.append("\(owner).\(field.name)")
            }
        }
        for code in spec.errorCodes where !text.contains(anchor("error-\(code.code.replacingOccurrences(of: "_", with: "-"))")) {
            missing.append(code.code)
        }
        for limit in spec.rateLimits where !text.contains(anchor("rate-limit-\(limit.name.replacingOccurrences(of: "_", with: "-"))")) {
            missing.append(limit.name)
        }
        for endpoint in spec.endpoints where !text.contains(anchor("endpoint-\(endpoint.name)")) { missing.append(endpoint.name) }
        for constant in spec.constants where !text.contains(anchor("constant-\(constant.name.lowercased())")) { missing.append(constant.name) }
        for flow in spec.flows where !text.contains(anchor("flow-\(flow.name.replacingOccurrences(of: "_", with: "-"))")) {
            missing.append(flow.name)
        }
        #expect(missing == [])
    }

    @Test func everyExampleIsAGoldenFrame() async throws {
        let text = try await Self.generate("Spec/clawline.yaml", "markdown", examples: Self.frames)
        let blocks = text.components(separatedBy: "```json\n").dropFirst().map { String($0.prefix { $0 != "`" }) }
        let golden = try ["client", "server"].flatMap { direction in
            try Golden.files(in: Self.root.appendingPathComponent("\(Self.frames)/\(direction)/valid"), withExtension: "json").map {
                try JSONSerialization.jsonObject(with: Data(contentsOf: $0)) as! NSDictionary
            }
        }
        #expect(blocks.count == 12, "one example per message")
        for block in blocks {
            let example = try JSONSerialization.jsonObject(with: Data(block.utf8)) as! NSDictionary
            #expect(golden.contains(example), "not a golden frame: \(block)")
        }
    }

    @Test func htmlIsSelfContained() async throws {
        let html = try await Self.generate("Spec/clawline.yaml", "html", examples: Self.frames)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("@import") && !html.contains("url("))
        #expect(!html.contains("src=\"http"))
        #expect(html.contains("prefers-color-scheme: dark") && html.contains("@media print"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == 4, "one inline SVG per flow")
    }
}
