extension String {
    /// Whether `self` and `other` hold the same UTF-8 bytes: storage identity, as SQL's `=`
    /// compares text (String's `==` also accepts canonically equivalent spellings).
    ///
    /// Compares the two contiguous buffers directly: the generic `utf8.elementsEqual` walks
    /// both views index by index, ~1,300 instructions for a 10-byte id, and the writer makes
    /// ~70 such comparisons per distinct SubmitReceipt (callgrind: 4.2 % of the server's
    /// instructions, with the `user_facts` string table's).
    package func hasSameBytes(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = other.utf8.withContiguousStorageIfAvailable { hasSameBytes(as: UnsafeRawBufferPointer($0)) }
        return compared ?? utf8.elementsEqual(other.utf8)
    }

    /// Whether `bytes` are exactly this string's UTF-8: a stored id read back from a row, compared
    /// as the String overload compares two strings.
    package func hasSameBytes(as bytes: UnsafeRawBufferPointer) -> Bool {
        guard utf8.count == bytes.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { UnsafeRawBufferPointer($0).hasSameBytes(as: bytes) }
        return compared ?? utf8.elementsEqual(bytes)
    }
}

extension UnsafeRawBufferPointer {
    /// Whether the two buffers hold the same bytes, eight at a time.
    ///
    /// Even over two raw buffers the generic `elementsEqual` steps through iterators byte by
    /// byte: ~550 instructions for the 16-27 byte ids the writer compares ~40 times per
    /// distinct SubmitReceipt (callgrind of b99a144: 1.4 % of the server's instructions).
    ///
    /// Inlinable: the facts cache calls it from StorageCore on every CheckEntitlement, and an
    /// opaque call there made the caller retain the id it compares.
    @inlinable package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let lhs = baseAddress, let rhs = other.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= count {
            guard lhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == rhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        while offset < count {
            guard lhs.load(fromByteOffset: offset, as: UInt8.self) == rhs.load(fromByteOffset: offset, as: UInt8.self)
            else { return false }
            offset += 1
        }
        return true
    }
}
