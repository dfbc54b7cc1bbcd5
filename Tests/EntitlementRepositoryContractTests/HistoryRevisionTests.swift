import EntitlementPorts
import Testing

/// The Server API's history revision per chain: absent until recorded, replaced by the next
/// one, kept apart per chain.
struct HistoryRevisionTests {
    @Test(arguments: Backend.allCases)
    func revisionsAreRecordedPerChainAndReplaced(_ backend: Backend) async throws {
        try await backend.withRepository { repository in
            let revisions = try #require(repository as? any TransactionHistoryRevisions)
            #expect(try await revisions.historyRevision(originalTransactionID: "1000") == nil)
            try await revisions.recordHistoryRevision("r1", originalTransactionID: "1000")
            try await revisions.recordHistoryRevision("x1", originalTransactionID: "2000")
            try await revisions.recordHistoryRevision("r2", originalTransactionID: "1000")
            #expect(try await revisions.historyRevision(originalTransactionID: "1000") == "r2")
            #expect(try await revisions.historyRevision(originalTransactionID: "2000") == "x1")
        }
    }
}
