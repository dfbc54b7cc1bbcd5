import StorageTables

/// A user id as the facts cache hashes and compares it: its UTF-8 bytes, as ``ExactID`` and
/// `String.hasSameBytes` (StorageTables) do.
///
/// The cache's own copy: called from here across the module boundary, those two retained and
/// released the id on every CheckEntitlement (two pairs a call, `Benchmarks/call-counts.sh`);
/// written in this module, over the inlinable byte comparison, they retain nothing.
enum CachedID {
    static func hash(_ id: String) -> Int {
        var hasher = Hasher()
        let hashed: Void? = id.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil { Array(id.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
        return hasher.finalize()
    }

    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                UnsafeRawBufferPointer(left).hasSameBytes(as: UnsafeRawBufferPointer(right))
            }
        }
        if let compared = compared ?? nil { return compared }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }
}
