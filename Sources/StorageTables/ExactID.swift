/// An id as the store keys it: its UTF-8 bytes, compared and hashed as SQL's `=` and the
/// tables' unique indexes compare text.
///
/// Swift's `String` equality and hashing accept canonically equivalent spellings
/// (`zo\u{EB}` and `zoe\u{308}`), which the store keeps as two users (or two chains). A
/// `Set<String>` or `[String: …]` of ids merges them, and the writer then refreshes, announces or
/// reads the facts of one of them for both: one user answered from a stale `user_facts` record,
/// or from the other's facts. Every set or dictionary of ids the writer holds is keyed by this,
/// as is the `user_facts` record's string table.
package struct ExactID: Hashable, Comparable {
    package let text: String

    package init(_ text: String) {
        self.text = text
    }

    package static func == (lhs: ExactID, rhs: ExactID) -> Bool {
        lhs.text.hasSameBytes(as: rhs.text)
    }

    package func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        // The same bytes fed the same way on either path, so equal ids always hash equal.
        if hashed == nil { Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    /// Byte order (for ids in NFC, the order of their scalars; for ASCII, String's order).
    package static func < (lhs: ExactID, rhs: ExactID) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }
}
