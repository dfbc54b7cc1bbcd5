/// Waits until `condition` holds, for conditions that read an actor's state (which
/// `eventually` cannot, its condition being synchronous); throws after `attempts` polls.
func until(_ what: String, attempts: Int = 6000, _ condition: () async throws -> Bool) async throws {
    for _ in 0..<attempts {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw UntilTimedOut(what: what)
}

/// What ``until(_:attempts:_:)`` throws: the condition never held.
struct UntilTimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "gave up waiting: \(what)" }
}
