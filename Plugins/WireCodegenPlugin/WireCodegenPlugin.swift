import Foundation
import PackagePlugin

/// Generates a target's protocol code from a wire spec at build time.
///
/// The target holds `wire-config.json`:
///
/// ```json
/// { "spec": "../../Spec/clawline.yaml", "namespace": "Clawline", "accessLevel": "public" }
/// ```
///
/// `spec` is relative to the config file; `namespace` defaults to the spec's file name in
/// UpperCamelCase and `accessLevel` to `public`. The spec, the config and the `wire` tool are the
/// command's inputs, so editing the spec regenerates on the next build.
@main
struct WireCodegenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let sourceTarget = target as? SourceModuleTarget else { return [] }
        let configFile = sourceTarget.sourceFiles.first { $0.url.lastPathComponent == WireConfig.fileName }?.url
            ?? target.directoryURL.appending(path: WireConfig.fileName)
        let config = try WireConfig.load(configFile, targetName: target.name)
        let tool = try context.tool(named: "wire")
        let outputDirectory = context.pluginWorkDirectoryURL.appending(path: "GeneratedSources")
        let outputs = config.outputFileNames.map { outputDirectory.appending(path: $0) }
        return [
            .buildCommand(
                displayName: "Generating \(config.namespace) from \(config.spec.lastPathComponent)",
                executable: tool.url,
                arguments: [
                    "generate", config.spec.path(percentEncoded: false),
                    "--output-directory", outputDirectory.path(percentEncoded: false),
                    "--namespace", config.namespace,
                    "--access-level", config.accessLevel,
                ],
                inputFiles: [config.spec, configFile, tool.url],
                outputFiles: outputs
            ),
        ]
    }
}

/// The plugin's configuration file.
struct WireConfig {
    static let fileName = "wire-config.json"

    var spec: URL
    var namespace: String
    var accessLevel: String

    /// The files `wire generate` writes for this namespace (kept in step with `SwiftGenerator.fileNames`).
    var outputFileNames: [String] {
        ["Types", "ClientMessages", "ServerMessages", "Frames", "Dispatch", "Tables"].map { "\(namespace)\($0).swift" }
    }

    struct ConfigError: Error, CustomStringConvertible {
        var description: String
    }

    static func load(_ url: URL, targetName: String) throws -> WireConfig {
        guard let data = FileManager.default.contents(atPath: url.path(percentEncoded: false)) else {
            throw ConfigError(description: "\(url.path(percentEncoded: false)):1:1: error: target '\(targetName)' uses WireCodegenPlugin but has no \(fileName); add one with {\"spec\": \"path/to/spec.yaml\"}")
        }
        let location = "\(url.path(percentEncoded: false)):1:1: error:"
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ConfigError(description: "\(location) \(fileName) must be a JSON object such as {\"spec\": \"../../Spec/clawline.yaml\"}")
        }
        let known: Set<String> = ["spec", "namespace", "accessLevel"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw ConfigError(description: "\(location) unknown key '\(unknown)' in \(fileName); the keys are spec, namespace and accessLevel")
        }
        guard let specPath = object["spec"] as? String, !specPath.isEmpty else {
            throw ConfigError(description: "\(location) \(fileName) needs \"spec\", the path of the spec relative to this file")
        }
        let spec = url.deletingLastPathComponent().appending(path: specPath).standardized
        let baseName = spec.deletingPathExtension().lastPathComponent
        let namespace = (object["namespace"] as? String) ?? upperCamel(baseName)
        let accessLevel = (object["accessLevel"] as? String) ?? "public"
        guard ["public", "package", "internal"].contains(accessLevel) else {
            throw ConfigError(description: "\(location) accessLevel must be public, package or internal, found '\(accessLevel)'")
        }
        return WireConfig(spec: spec, namespace: namespace, accessLevel: accessLevel)
    }

    /// `clawline` → `Clawline`, `coach-me` → `CoachMe`.
    static func upperCamel(_ name: String) -> String {
        name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
