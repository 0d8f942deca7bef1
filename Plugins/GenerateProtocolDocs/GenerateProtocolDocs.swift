import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-protocol-docs [--spec PATH] [--output DIR] [--examples DIR]`
///
/// Writes the protocol reference of a spec as Markdown and HTML (by default Spec/clawline.yaml into
/// docs/), with examples from a golden-frame folder when `--examples` is given.
@main
struct GenerateProtocolDocs: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let root = context.package.directoryURL
        let spec = extractor.extractOption(named: "spec").last ?? "Spec/clawline.yaml"
        let output = extractor.extractOption(named: "output").last ?? "docs"
        let examples = extractor.extractOption(named: "examples").last
        if !extractor.remainingArguments.isEmpty {
            Diagnostics.error("unknown arguments: \(extractor.remainingArguments.joined(separator: " ")); use --spec, --output and --examples")
            return
        }
        let tool = try context.tool(named: "wire")
        // Relative paths are relative to the package; absolute paths stay as given.
        func resolve(_ path: String) -> String {
            path.hasPrefix("/") ? path : root.appending(path: path).path(percentEncoded: false)
        }
        for format in ["markdown", "html"] {
            var arguments = ["docs", resolve(spec), "--format", format, "--output", resolve(output)]
            if let examples { arguments += ["--examples", resolve(examples)] }
            let process = Process()
            process.executableURL = tool.url
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                Diagnostics.error("wire docs --format \(format) failed with status \(process.terminationStatus)")
                return
            }
        }
        print("Wrote the \(format(spec)) reference to \(output)/")
    }

    private func format(_ spec: String) -> String {
        URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent
    }
}
