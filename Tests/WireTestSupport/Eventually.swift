/// Waits (in real time, at most `timeout`: a guard against a hung test, not a timing assertion)
/// until `condition` holds; returns whether it did.
public func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return false
}
