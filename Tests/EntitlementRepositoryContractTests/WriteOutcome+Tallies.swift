import EntitlementPorts

extension WriteOutcome {
    /// Only the counts and the replay flag, for tests about those: which chains a write took
    /// without a token and what it refused are checked where they are the subject.
    var tallies: WriteOutcome {
        WriteOutcome(newTransactions: newTransactions, newEvents: newEvents, alreadyProcessed: alreadyProcessed)
    }
}
