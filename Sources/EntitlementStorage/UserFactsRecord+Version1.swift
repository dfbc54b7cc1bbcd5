import Entitlements

extension UserFactsRecord {
    /// Records written before version 2 (every record of a store last written by an older
    /// binary) stay readable as they are: nothing rewrites them until the user's next write,
    /// which writes version 2. Frozen with the format: never change it, add a version.
    ///
    ///     version (1) | strings: count, then length + UTF-8 bytes each
    ///     | transactions: count, then per transaction flags, string refs, dates, enum indexes
    ///     | renewal infos: count, then per info flags, string refs, dates
    static func decodeVersion1(_ reader: inout RecordReader) throws(Malformed) -> UserFacts {
        let stringCount = try reader.count()
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        for _ in 0..<stringCount { strings.append(try reader.string()) }
        let refs = StringRefs(strings: strings)
        var facts = UserFacts()
        let transactionCount = try reader.count()
        facts.transactions.reserveCapacity(transactionCount)
        for _ in 0..<transactionCount {
            let flags = try reader.varint()
            let transactionID = try refs.string(&reader)
            let originalTransactionID = try refs.string(&reader)
            let productID = try refs.string(&reader)
            let purchase = try reader.signed()
            let originalPurchase = try reader.signed()
            let expires = flags & 1 != 0 ? try reader.signed() : nil
            let cancellation = flags & 2 != 0 ? try reader.signed() : nil
            facts.transactions.append(try transaction(
                flags: flags, ids: (transactionID, originalTransactionID, productID),
                dates: (purchase, originalPurchase, expires, cancellation), refs: refs, reader: &reader))
        }
        let renewalCount = try reader.count()
        for _ in 0..<renewalCount {
            let flags = try reader.varint()
            let originalTransactionID = try refs.string(&reader)
            let autoRenewProductID = try refs.optionalString(&reader)
            let grace = flags & 4 != 0 ? try reader.signed() : nil
            let intent = flags & 8 != 0 ? try reader.signed() : nil
            let signed = try reader.signed()
            facts.renewalInfos[originalTransactionID] = renewalInfo(
                flags: flags, originalTransactionID: originalTransactionID, autoRenewProductID: autoRenewProductID,
                grace: grace, intent: intent, signed: signed)
        }
        return facts
    }
}

/// References into a record's string table: by index, or index + 1 with 0 for nil.
struct StringRefs {
    let strings: [String]

    func string(_ reader: inout RecordReader) throws(UserFactsRecord.Malformed) -> String {
        let index = try reader.varint()
        guard index < strings.count else { throw UserFactsRecord.Malformed() }
        return strings[Int(index)]
    }

    func optionalString(_ reader: inout RecordReader) throws(UserFactsRecord.Malformed) -> String? {
        let index = try reader.varint()
        guard index > 0 else { return nil }
        guard index <= strings.count else { throw UserFactsRecord.Malformed() }
        return strings[Int(index - 1)]
    }
}
