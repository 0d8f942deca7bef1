import ArgumentParser
import Foundation
import WireProbe
import WireSpec

/// `wire probe URL`: checks a live endpoint's answers against the spec's, case by case.
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Check a live WebSocket provider's answers against the spec, rule by rule.",
        discussion: """
            For every client message and every rule the spec states about it, the probe sends a frame that breaks \
            exactly that rule and checks the answer (error code, messageId, close and close code); it also sends \
            frames a phase does not allow, frames that are not JSON or not a frame, a frame over maxFrameBytes, \
            bursts past each rate limit, and valid frames generated from a seed (printed; replay with --seed). \
            Phases after the first are reached with --setup PHASE=FILE.jsonl, or for Clawline with --pair. \
            Exit status: 0 when every case holds, 1 when one does not, 2 when the probe could not run.
            """
    )

    enum Format: String, ExpressibleByArgument {
        case text, junit
    }

    @Option(name: .long, help: "The spec (default: Spec/clawline.yaml in the current directory).")
    var spec: String?

    @Argument(help: "The provider's WebSocket URL (ws:// or wss://), e.g. ws://127.0.0.1:7117/ws.")
    var url: String

    @Option(name: .long, help: ArgumentHelp("Frames that reach PHASE, one JSON frame per line (repeatable).", valueName: "PHASE=FILE.jsonl"))
    var setup: [String] = []

    @Flag(name: .long, help: "Clawline: reach 'authenticated' by pairing fresh devices (a provider with no devices, or give an admin).")
    var pair = false

    @Option(name: .long, help: "With --pair on a provider that has devices: an admin device's id.")
    var adminDevice: String?

    @Option(name: .long, help: "With --pair on a provider that has devices: that admin device's token.")
    var adminToken: String?

    @Option(
        name: .long,
        help:
            "With --pair: read the admin's device id and token from this file (two lines) when it exists, else write the admin the probe made there.")
    var adminFile: String?

    @Option(name: .long, help: "The seed of the generated valid frames (default: a random one, printed).")
    var seed: UInt64?

    @Option(name: .long, help: "Valid frames generated per message.")
    var positive = 8

    @Option(name: .long, help: "Run only the cases whose name contains this text.")
    var only: String?

    @Option(name: .long, help: "Seconds to wait for an answer the provider does not send.")
    var timeout = 5.0

    @Option(name: .long, help: "A PEM file of certificate authorities to trust for wss://.")
    var caFile: String?

    @Option(name: .long, help: "Output: text (a line per case, then the rules without a case and a summary) or junit (XML).")
    var format: Format = .text

    @Option(name: .long, help: "Also write a JUnit XML report to this file (beside the text output).")
    var junit: String?

    func run() async throws { try await probe() }

    /// Runs the probe (`main.swift` calls it by this name, so the asynchronous body is chosen).
    func probe() async throws {
        #if NIOTransport
            guard let endpoint = URL(string: url), ["ws", "wss"].contains(endpoint.scheme ?? "") else {
                printError("error: '\(url)' is not a ws:// or wss:// URL")
                throw ExitCode(ExitStatus.usage)
            }
            let specPath = spec ?? "Spec/clawline.yaml"
            guard FileManager.default.fileExists(atPath: specPath) else {
                printError("error: cannot read spec '\(specPath)'\(spec == nil ? " (no --spec given)" : "")")
                throw ExitCode(ExitStatus.usage)
            }
            let model = try loadCheckedSpec(specPath)
            let probeSetup = try makeSetup()
            let seed = self.seed ?? UInt64.random(in: 1...999_999)
            var skipping: [String: String] = [:]
            if pair {
                skipping["pair_decision"] = "whether a valid decision is refused depends on the requests the provider holds (conformance checks it)"
            }
            var plan = ProbePlan(spec: model, seed: seed, positiveCount: positive, reachable: probeSetup?.phases ?? [], skippingPositive: skipping)
            if let only { plan.keepCases { $0.name.contains(only) } }
            let connector = WebSocketProbeConnector(url: endpoint, trustedCAFile: caFile, maxFrameSize: 1 << 24)
            let runner = ProbeRunner(spec: model, connector: connector, setup: probeSetup, timeout: .milliseconds(Int(timeout * 1000)))
            let start = Date()
            let text = format == .text
            let results: [ProbeResult]
            do {
                // A line per case as it ends, unbuffered, so a pipe or a CI log follows the run.
                results = try await runner.run(plan) { result in
                    if text { FileHandle.standardOutput.write(Data((ProbeReport.line(result) + "\n").utf8)) }
                }
            } catch {
                printError("error: the probe could not run against \(url): \(error)")
                throw ExitCode(ExitStatus.usage)
            }
            if let pairing = probeSetup as? ClawlinePairingSetup {
                await pairing.finish()
                if let adminFile, !FileManager.default.fileExists(atPath: adminFile), let admin = await pairing.adminCredentials {
                    try "\(admin.deviceID)\n\(admin.token)\n".write(toFile: adminFile, atomically: true, encoding: .utf8)
                }
            }
            let seconds = Date().timeIntervalSince(start)
            if let junit {
                try ProbeReport.junit(results, suite: "wire probe \(url)", seconds: seconds).write(toFile: junit, atomically: true, encoding: .utf8)
            }
            if text {
                for line in ProbeReport.gapLines(plan.gaps) { print(line) }
                print(ProbeReport.summary(results, gaps: plan.gaps, seed: seed, seconds: seconds))
            } else {
                print(ProbeReport.junit(results, suite: "wire probe \(url)", seconds: seconds), terminator: "")
            }
            // 1: a rule failed; 2: a case could not be judged (its phase's setup failed).
            throw ExitCode(CheckReport.exitStatus(results.map(\.verdict)))
        #else
            printError(
                "error: this wire was built without the NIOTransport trait, so it cannot open a WebSocket; "
                    + "build it with `swift build --traits NIOTransport --product wire`")
            throw ExitCode(ExitStatus.usage)
        #endif
    }

    private func makeSetup() throws -> (any ProbeSetup)? {
        if pair {
            guard setup.isEmpty else {
                printError("error: give --pair or --setup, not both")
                throw ExitCode(ExitStatus.usage)
            }
            if let adminFile, adminDevice == nil, let text = try? String(contentsOfFile: adminFile, encoding: .utf8) {
                let lines = text.split(separator: "\n").map(String.init)
                guard lines.count == 2 else {
                    printError("error: \(adminFile) should hold an admin's device id and token, a line each")
                    throw ExitCode(ExitStatus.usage)
                }
                return ClawlinePairingSetup(admin: .init(deviceID: lines[0], token: lines[1]))
            }
            switch (adminDevice, adminToken) {
            case (let device?, let token?): return ClawlinePairingSetup(admin: .init(deviceID: device, token: token))
            case (nil, nil): return ClawlinePairingSetup()
            default:
                printError("error: --admin-device and --admin-token go together")
                throw ExitCode(ExitStatus.usage)
            }
        }
        guard let first = setup.first else { return nil }
        guard setup.count == 1 else {
            printError("error: one --setup is supported for now (the phase the others start from)")
            throw ExitCode(ExitStatus.usage)
        }
        let parts = first.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else {
            printError("error: --setup takes PHASE=FILE.jsonl, found '\(first)'")
            throw ExitCode(ExitStatus.usage)
        }
        guard let text = try? String(contentsOfFile: parts[1], encoding: .utf8) else {
            printError("error: cannot read setup file '\(parts[1])'")
            throw ExitCode(ExitStatus.usage)
        }
        return ScriptSetup(phase: parts[0], lines: text.components(separatedBy: "\n"), file: parts[1])
    }
}
