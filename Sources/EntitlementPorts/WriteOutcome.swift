/// What one acknowledged ``FactsWrite`` changed; it is durable when the caller sees this.
public struct WriteOutcome: Sendable, Hashable {
    /// Transactions stored for the first time (a known transaction_id counts 0, even if updated).
    public var newTransactions: Int
    /// History events added; a replay adds 0 because event ids come from the source.
    public var newEvents: Int
    /// The write's ``FactsWrite/sourceID`` had been recorded before this write.
    public var alreadyProcessed: Bool

    public init(newTransactions: Int = 0, newEvents: Int = 0, alreadyProcessed: Bool = false) {
        self.newTransactions = newTransactions
        self.newEvents = newEvents
        self.alreadyProcessed = alreadyProcessed
    }
}
