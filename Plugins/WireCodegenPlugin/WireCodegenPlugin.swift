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
/// `spec` is relative to the config file; `namespace` defaults to the protocol's `name` in
/// UpperCamelCase (`wire generate` decides it; the plugin passes only a configured one) and
/// `accessLevel` to `public`. The spec, the config and the `wire-generate` tool are the command's inputs, so
/// editing the spec regenerates on the next build.
@main
struct WireCodegenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let sourceTarget = target as? SourceModuleTarget else { return [] }
        let configFile =
            sourceTarget.sourceFiles.first { $0.url.lastPathComponent == WireConfig.fileName }?.url
            ?? target.directoryURL.appending(path: WireConfig.fileName)
        let config = try WireConfig.load(configFile, targetName: target.name)
        let tool = try context.tool(named: "wire-generate")
        let outputDirectory = context.pluginWorkDirectoryURL.appending(path: "GeneratedSources")
        let outputs = WireConfig.outputFileNames.map { outputDirectory.appending(path: $0) }
        var arguments = [
            config.spec.path(percentEncoded: false),
            "--output", outputDirectory.path(percentEncoded: false),
            "--access-level", config.accessLevel,
        ]
        if let namespace = config.namespace { arguments += ["--namespace", namespace] }
        return [
            .buildCommand(
                displayName: "Generating \(target.name) from \(config.spec.lastPathComponent)",
                executable: tool.url,
                arguments: arguments,
                inputFiles: [config.spec, configFile, tool.url],
                outputFiles: outputs
            )
        ]
    }
}

/// The plugin's configuration file.
struct WireConfig {
    static let fileName = "wire-config.json"

    var spec: URL
    /// The configured namespace; `nil` leaves the default to `wire generate`.
    var namespace: String?
    var accessLevel: String

    /// The files `wire generate` writes, whatever the spec (a copy of `SwiftGenerator.fileNames`,
    /// which a plugin cannot link; a test checks that they agree).
    static let outputFileNames = [
        "GeneratedTypes.swift", "GeneratedClientMessages.swift", "GeneratedServerMessages.swift",
        "GeneratedFrames.swift", "GeneratedDispatch.swift", "GeneratedTables.swift",
    ]

    struct ConfigError: Error, CustomStringConvertible {
        var description: String
    }

    static func load(_ url: URL, targetName: String) throws -> WireConfig {
        guard let data = FileManager.default.contents(atPath: url.path(percentEncoded: false)) else {
            throw ConfigError(
                description:
                    "\(url.path(percentEncoded: false)):1:1: error: target '\(targetName)' uses WireCodegenPlugin but has no \(fileName); add one "
                    + "with {\"spec\": \"path/to/spec.yaml\"}"
            )
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
        let namespace = object["namespace"] as? String
        let accessLevel = (object["accessLevel"] as? String) ?? "public"
        guard ["public", "package", "internal"].contains(accessLevel) else {
            throw ConfigError(description: "\(location) accessLevel must be public, package or internal, found '\(accessLevel)'")
        }
        return WireConfig(spec: spec, namespace: namespace, accessLevel: accessLevel)
    }
}
