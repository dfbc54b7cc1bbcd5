extension String {
    /// Whether `self` and `other` hold the same UTF-8 bytes: storage identity, as SQL's `=`
    /// compares text (String's `==` also accepts canonically equivalent spellings).
    ///
    /// Compares the two contiguous buffers directly: the generic `utf8.elementsEqual` walks
    /// both views index by index, ~1,300 instructions for a 10-byte id, and the writer makes
    /// ~70 such comparisons per distinct SubmitReceipt (callgrind: 4.2 % of the server's
    /// instructions, with the `user_facts` string table's).
    func hasSameBytes(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
