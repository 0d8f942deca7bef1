import Foundation

/// Collects the failures of one check.
final class FailureRecorder: @unchecked Sendable {
    let check: String
    private let lock = NSLock()
    private var recorded: [ContractFailure] = []

    init(check: String) { self.check = check }

    func record(_ message: String, line: Int = #line) {
        lock.withLock { recorded.append(ContractFailure(check: check, message: message, line: line)) }
    }

    /// Records `message` unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) {
        if !condition { record(message(), line: line) }
    }

    /// Records a failure unless `actual` equals `expected`.
    func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String, line: Int = #line) {
        if actual != expected { record("\(what): expected \(expected), got \(actual)", line: line) }
    }

    var failures: [ContractFailure] { lock.withLock { recorded } }
}
