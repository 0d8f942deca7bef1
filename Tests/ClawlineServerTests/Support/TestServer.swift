import ClawlineProtocol
import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import WireTestSupport

@testable import ClawlineServer

/// A wall clock a test sets.
final class TestDate: Sendable {
    private let value = NIOLockedValueBox(Date(timeIntervalSince1970: 1_704_672_000))

    var now: Date { value.withLockedValue { $0 } }

    func advance(by seconds: TimeInterval) {
        value.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// A provider running in this process on 127.0.0.1 (a free port), with an SQLite store in
/// memory, a manual clock and a set wall clock.
struct TestServer: Sendable {
    let port: Int
    let clock: ManualClock
    /// The clock of the keepalive's pings, apart, so that moving ``clock`` pings no one.
    let keepaliveClock: ManualClock
    let date: TestDate
    let store: any ProviderStore
    let uploads: String
    /// The server's hub, for tests that act or look inside.
    let hub: ProviderHub

    var url: String { "ws://127.0.0.1:\(port)/ws" }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    static let signingKey = [UInt8](repeating: 7, count: 32)

    /// Runs `body` against a fresh server, then shuts it down. With `realTime`, the server's
    /// timers and windows run on the continuous clock (for tools that pace by real time, as the
    /// probe and the conformance suite do); ``clock`` and ``date`` then move nothing.
    static func run<T: Sendable>(
        realTime: Bool = false, assistant: any Assistant = EchoAssistant(), limits: ProviderLimits = ProviderLimits(),
        wrapStore: @Sendable (SQLiteProviderStore) -> any ProviderStore = { $0 },
        configure: @Sendable (inout ClawlineServerConfiguration) -> Void = { _ in },
        logHandler: (@Sendable (String) -> any LogHandler)? = nil,
        _ body: @Sendable (TestServer) async throws -> T
    ) async throws -> T {
        let clock = ManualClock()
        let keepaliveClock = ManualClock()
        let date = TestDate()
        let sqlite = try await SQLiteProviderStore.open(path: nil)
        let store = wrapStore(sqlite)
        let uploads = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-uploads-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: uploads) }
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        var logger = logHandler.map { Logger(label: "clawline.test", factory: $0) } ?? Logger(label: "clawline.test")
        if logHandler == nil {
            logger.logLevel = ProcessInfo.processInfo.environment["CLAWLINE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        }
        var configuration = ClawlineServerConfiguration(port: 0, uploadsDirectory: uploads, maintenanceInterval: .milliseconds(50), limits: limits)
        configure(&configuration)
        let (hub, application) = try await ClawlineServer.hubAndService(
            configuration: configuration, store: store,
            signingKey: signingKey, assistant: assistant,
            environment: realTime ? ServerEnvironment() : ServerEnvironment(clock: clock, keepaliveClock: keepaliveClock, now: { date.now }),
            logger: logger, cluster: nil
        ) { port in
            portContinuation.yield(port)
        }
        defer {
            Task { try? await sqlite.close() }
        }
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw TestFailure("the server did not start") }
            let server = TestServer(
                port: port, clock: clock, keepaliveClock: keepaliveClock, date: date, store: store, uploads: uploads, hub: hub)
            do {
                let value = try await body(server)
                await services.triggerGracefulShutdown()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
        }
    }
}

/// A failed step of a test.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
