import ArgumentParser
import ClawlineClient
import ClawlineConformance
import Foundation
import WireProbe

/// `clawline conformance URL`: the provider contract's rules that the spec language cannot state,
/// checked against a live provider, case by case.
struct Conformance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a live Clawline provider against the contract's rules across connections, devices, stored state and timers.",
        discussion: """
            Each case names the rule it checks (its place in Spec/clawline.yaml) and runs as devices of its own: pairing \
            and approval, the first admin, denial, takeover, replay after a cursor and before live frames, retried \
            message ids, the stream of an answer, typing, every per-device rate limit, uploads and downloads across \
            accounts, revocation (with --operator-cmd) and the pairing timer (with --timers). On a provider with no \
            devices the suite pairs its own admin (and writes it to --admin-file); on one with devices, give an admin. \
            Cases that need a fresh provider, the operator's command or the timers are skipped, with the reason, \
            without them. Exit status: 0 when every case holds, 1 when one does not, 2 when the suite could not run.
            """)

    enum Format: String, ExpressibleByArgument {
        case text, junit
    }

    @Argument(help: "The provider's WebSocket URL (ws:// or wss://), e.g. ws://127.0.0.1:8080/ws.")
    var url: String

    @Option(name: .long, help: "The spec the cases' rules are located in, for file:line in reports.")
    var spec = "Spec/clawline.yaml"

    @Option(name: .long, help: "An admin device's id, for a provider that has devices.")
    var adminDevice: String?

    @Option(name: .long, help: "That admin device's token.")
    var adminToken: String?

    @Option(
        name: .long,
        help: "Read the admin's device id and token from this file (two lines) when it exists, else write there the admin the suite paired.")
    var adminFile: String?

    @Option(name: .long, help: ArgumentHelp("A shell command that revokes a device's token; {device} is replaced by its id.", valueName: "COMMAND"))
    var operatorCmd: String?

    @Flag(name: .long, help: "Run the cases that wait for the contract's timers (the keepalive: 30 s and 90 s; the pairing expiry: 5 minutes).")
    var timers = false
    @Flag(
        name: .long,
        help: "The provider's assistant streams an answer for half a second or more: run the cases that go while it streams.")
    var streamingAssistant = false

    @Option(name: .long, help: "Run only the cases whose name contains this text (repeatable).")
    var only: [String] = []

    @Option(name: .long, help: "Seconds to wait for an answer the contract says is due.")
    var timeout = 5.0

    @Option(name: .long, help: "A PEM file of certificate authorities to trust for wss:// and https://.")
    var caFile: String?

    @Option(name: .long, help: "Output: text (a line per case and a summary) or junit (XML).")
    var format: Format = .text

    @Option(name: .long, help: "Also write a JUnit XML report to this file (beside the text output).")
    var junit: String?

    func run() async throws {
        guard let endpoint = URL(string: url), ["ws", "wss"].contains(endpoint.scheme ?? "") else {
            throw usage("'\(url)' is not a ws:// or wss:// URL")
        }
        var options = ConformanceOptions(
            url: endpoint, timeout: .milliseconds(Int(timeout * 1000)), admin: try admin(), operatorCommand: operatorCmd, runTimers: timers,
            streamingAssistant: streamingAssistant)
        options.httpBase = ConformanceOptions(url: endpoint).httpBase
        #if NIOTransport
            options.sendHTTP = NIOHTTPExchange(trustedCAFile: caFile).send
            let connector = WebSocketProbeConnector(url: endpoint, trustedCAFile: caFile, maxFrameSize: 1 << 24)
        #else
            throw usage("this clawline was built without the NIOTransport trait, so it cannot open a WebSocket")
        #endif
        var suite = ConformanceSuite(
            options: options, connector: connector, keepaliveConnector: RawWebSocketConnector(url: endpoint, trustedCAFile: caFile))
        suite.keepCases(named: only)
        let finder = SpecLineFinder(contentsOf: spec)
        let text = format == .text
        let start = Date()
        let run: ConformanceRun
        do {
            run = try await suite.run { result in
                if text { FileHandle.standardOutput.write(Data((CheckReport.line(result.row(finder)) + "\n").utf8)) }
            }
        } catch {
            FileHandle.standardError.write(Data("error: the suite could not run against \(url): \(error)\n".utf8))
            throw ExitCode(2)
        }
        if let adminFile, !FileManager.default.fileExists(atPath: adminFile), let admin = run.admin {
            try "\(admin.deviceID)\n\(admin.token)\n".write(toFile: adminFile, atomically: true, encoding: .utf8)
        }
        let seconds = Date().timeIntervalSince(start)
        let rows = run.results.map { $0.row(finder) }
        if let junit {
            try CheckReport.junit(rows, suite: "clawline conformance \(url)", seconds: seconds).write(
                toFile: junit, atomically: true, encoding: .utf8)
        }
        if text {
            let freshness = run.providerWasFresh ? "a fresh provider (the suite paired its admin)" : "a provider with devices"
            print("\(CheckReport.counts(run.results.map(\.verdict))); \(String(format: "%.1f", seconds)) s; \(freshness)")
        } else {
            print(CheckReport.junit(rows, suite: "clawline conformance \(url)", seconds: seconds), terminator: "")
        }
        // 1: a rule failed; 2: a case could not be judged (its setup failed); warnings pass.
        throw ExitCode(CheckReport.exitStatus(run.results.map(\.verdict)))
    }

    private func admin() throws -> PairedDevice? {
        if let adminDevice {
            guard let adminToken else { throw usage("--admin-device needs --admin-token") }
            return PairedDevice(deviceID: adminDevice, token: adminToken)
        }
        guard let adminFile, FileManager.default.fileExists(atPath: adminFile) else { return nil }
        guard let text = try? String(contentsOfFile: adminFile, encoding: .utf8) else { throw usage("cannot read --admin-file '\(adminFile)'") }
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.count == 2 else { throw usage("--admin-file '\(adminFile)' must hold two lines: the device id, then its token") }
        return PairedDevice(deviceID: lines[0], token: lines[1])
    }

    private func usage(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        return ExitCode(2)
    }
}
