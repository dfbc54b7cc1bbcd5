import Entitlements

/// A transaction the writer has just stored or found, as a history event can point at it
/// (`history_events.transaction_rowid`): its row and the three ids the pointer stands for.
///
/// Why: an event naming the transaction it was derived from is the common case (every new
/// transaction of a receipt or notification), and the writer already knows that row. Binding
/// it spares the general insert's lookup, which SQLite runs as a materialized subquery (an
/// ephemeral table opened and closed) under a statement journal: the event insert was 16 % of
/// the server's CPU on distinct SubmitReceipt calls, against ~7 % for the transactions' own.
package struct HistoryPointerTarget {
    package var row: Int64
    package var transactionID: String
    package var productID: String
    package var originalTransactionID: String
    /// The row's expiry once this write is done (nil: none yet); once set it never changes,
    /// so an event with the same expiry can read it through the pointer.
    package var expiresDateMs: Int64?

    /// The row holding `transaction` once this write is done: its ids as the row holds them (a
    /// stored copy keeps its product and chain whatever a later copy says) and its expiry.
    package init(row: Int64, storedAs transaction: Transaction) {
        self.init(row: row, transactionID: transaction.transactionID, productID: transaction.productID,
                  originalTransactionID: transaction.originalTransactionID, expiresDateMs: transaction.expiresDateMs)
    }

    package init(row: Int64, transactionID: String, productID: String, originalTransactionID: String,
         expiresDateMs: Int64?) {
        self.row = row
        self.transactionID = transactionID
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.expiresDateMs = expiresDateMs
    }

    /// Whether `event` names exactly this transaction, byte for byte: the test the general
    /// insert makes with SQL's `=` (``HistoryEvent/insertHistorySQL``), so either statement
    /// stores the same row. String's `==` would accept canonically equivalent spellings.
    package func isNamed(by event: HistoryEvent) -> Bool {
        event.transactionID.hasSameBytes(as: transactionID)
            && event.productID.hasSameBytes(as: productID)
            && event.originalTransactionID.hasSameBytes(as: originalTransactionID)
    }
}
