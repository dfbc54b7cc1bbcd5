import Entitlements
import SQLite

/// The compact binary form of a user's ``UserFacts`` kept in `user_facts` (the read model):
/// one row per user, so a facts-cache miss is one B-tree lookup instead of six.
///
/// The normalized tables stay the source of truth; the writer rewrites a user's record in the
/// same transaction as any change to their facts, and a reader that finds no record (a database
/// from before this table, a user never written since) or one it cannot decode reads the tables
/// instead. Layout of version 2, all integers LEB128 varints (signed ones zigzagged):
///
///     version (2) | strings: count, then a tag each: odd, a decimal number (tag >> 1) standing
///         for its canonical digits; even, tag >> 1 bytes of UTF-8 follow
///     | transactions: count, then per transaction flags, string refs, dates, enum indexes
///     | renewal infos: count, then per info flags, string refs, dates
///
/// Every string is written once and referenced by index (an original transaction id, product
/// and group repeat on each transaction of a chain). Version 2 (issue 14 goal 2) stores Apple's
/// numeric ids as numbers (16 digits in 7 bytes instead of 17) and dates as differences: a
/// purchase from the previous transaction's, an original purchase from the previous
/// transaction's original purchase (equal within a chain: one byte), expiry and cancellation
/// from the transaction's own purchase, a grace period from the info's signed date. Differences
/// wrap (`&-`, `&+`), so every Int64 comes back exactly. Version 1 records still decode
/// (``decodeVersion1(_:)``); a layout change gets a new version, and an unknown version reads
/// as "no record", so an old binary on a newer file still answers (from the tables).
enum UserFactsRecord {
    static let version: UInt8 = 2
    /// The enums' cases in the order their indexes are stored (`allCases`' order, part of the
    /// format), built once: `allCases` allocates a new array on every call, two per
    /// transaction decoded (~250 instructions a record, callgrind).
    private static let environments = Environment.allCases
    private static let productTypes = ProductType.allCases

    struct Malformed: Error, CustomStringConvertible {
        var description: String { "a user_facts record is malformed; the tables are read instead" }
    }

    static func encode(_ facts: UserFacts) -> [UInt8] {
        var strings = StringTable(capacity: 3 * facts.transactions.count + 2 * facts.renewalInfos.count + 4)
        var body: [UInt8] = []
        body.reserveCapacity(48 * facts.transactions.count + 32)
        body.appendVarint(UInt64(facts.transactions.count))
        var previous: (purchase: Int64, originalPurchase: Int64)?
        for transaction in facts.transactions {
            var flags: UInt64 = 0
            if transaction.expiresDateMs != nil { flags |= 1 }
            if transaction.cancellationDateMs != nil { flags |= 2 }
            if transaction.isTrialPeriod { flags |= 4 }
            if transaction.isInIntroOfferPeriod { flags |= 8 }
            if transaction.isUpgraded { flags |= 16 }
            body.appendVarint(flags)
            body.appendVarint(strings.index(transaction.transactionID))
            body.appendVarint(strings.index(transaction.originalTransactionID))
            body.appendVarint(strings.index(transaction.productID))
            let purchase = transaction.purchaseDateMs
            body.appendSigned(purchase &- (previous?.purchase ?? 0))
            body.appendSigned(transaction.originalPurchaseDateMs &- (previous?.originalPurchase ?? purchase))
            if let expires = transaction.expiresDateMs { body.appendSigned(expires &- purchase) }
            if let cancellation = transaction.cancellationDateMs { body.appendSigned(cancellation &- purchase) }
            previous = (purchase, transaction.originalPurchaseDateMs)
            body.appendVarint(strings.optionalIndex(transaction.subscriptionGroupIdentifier))
            body.appendVarint(strings.optionalIndex(transaction.webOrderLineItemID))
            body.appendVarint(strings.optionalIndex(transaction.inAppOwnershipType))
            body.appendVarint(strings.optionalIndex(transaction.appAccountToken))
            body.appendVarint(UInt64(environments.firstIndex(of: transaction.environment)!))
            let productType = transaction.declaredProductType.map { productTypes.firstIndex(of: $0)! + 1 }
            body.appendVarint(UInt64(productType ?? 0))
        }
        body.appendVarint(UInt64(facts.renewalInfos.count))
        // Sorted, so equal facts always encode to equal bytes.
        for (_, info) in facts.renewalInfos.sorted(by: { $0.key < $1.key }) {
            var flags: UInt64 = 0
            if info.autoRenewStatus { flags |= 1 }
            if info.isInBillingRetryPeriod { flags |= 2 }
            if info.gracePeriodExpiresDateMs != nil { flags |= 4 }
            if info.expirationIntent != nil { flags |= 8 }
            body.appendVarint(flags)
            body.appendVarint(strings.index(info.originalTransactionID))
            body.appendVarint(strings.optionalIndex(info.autoRenewProductID))
            body.appendSigned(info.signedDateMs)
            if let grace = info.gracePeriodExpiresDateMs { body.appendSigned(grace &- info.signedDateMs) }
            if let intent = info.expirationIntent { body.appendSigned(Int64(intent)) }
        }
        var record: [UInt8] = [version]
        record.reserveCapacity(body.count + 16 * strings.values.count)
        record.appendVarint(UInt64(strings.values.count))
        for string in strings.values {
            if let number = DecimalText.value(string) {
                record.appendVarint(number << 1 | 1)
            } else {
                record.appendVarint(UInt64(string.utf8.count) << 1)
                record.append(contentsOf: string.utf8)
            }
        }
        record.append(contentsOf: body)
        return record
    }

    /// Decodes a record of either version; nil for a version this binary does not know.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> UserFacts? {
        var reader = RecordReader(bytes)
        let facts: UserFacts
        switch try reader.byte() {
        case 1: facts = try decodeVersion1(&reader)
        case version: facts = try decodeVersion2(&reader)
        default: return nil
        }
        guard reader.isAtEnd else { throw Malformed() }
        return facts
    }

    private static func decodeVersion2(_ reader: inout RecordReader) throws(Malformed) -> UserFacts {
        let stringCount = try reader.count()
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        for _ in 0..<stringCount {
            let tag = try reader.varint()
            guard tag & 1 == 0 else {
                // Only canonical 1-18 digit numbers are ever written.
                guard tag >> 1 < 1_000_000_000_000_000_000 else { throw Malformed() }
                strings.append(DecimalText.text(tag >> 1))
                continue
            }
            guard tag >> 1 <= UInt64(Int.max) else { throw Malformed() }
            strings.append(try reader.string(length: Int(tag >> 1)))
        }
        let refs = StringRefs(strings: strings)
        // Built in locals and handed to UserFacts once: its properties' observers would run on
        // every append and insertion otherwise.
        let transactionCount = try reader.count()
        var transactions: [Transaction] = []
        transactions.reserveCapacity(transactionCount)
        var previous: (purchase: Int64, originalPurchase: Int64)?
        for _ in 0..<transactionCount {
            let flags = try reader.varint()
            let transactionID = try refs.string(&reader)
            let originalTransactionID = try refs.string(&reader)
            let productID = try refs.string(&reader)
            let purchase = try reader.signed() &+ (previous?.purchase ?? 0)
            let originalPurchase = try reader.signed() &+ (previous?.originalPurchase ?? purchase)
            let expires = flags & 1 != 0 ? try reader.signed() &+ purchase : nil
            let cancellation = flags & 2 != 0 ? try reader.signed() &+ purchase : nil
            previous = (purchase, originalPurchase)
            transactions.append(try transaction(
                flags: flags, ids: (transactionID, originalTransactionID, productID),
                dates: (purchase, originalPurchase, expires, cancellation), refs: refs, reader: &reader))
        }
        let renewalCount = try reader.count()
        var renewalInfos: [String: RenewalInfo] = [:]
        for _ in 0..<renewalCount {
            let flags = try reader.varint()
            let originalTransactionID = try refs.string(&reader)
            let autoRenewProductID = try refs.optionalString(&reader)
            let signed = try reader.signed()
            let grace = flags & 4 != 0 ? try reader.signed() &+ signed : nil
            let intent = flags & 8 != 0 ? try reader.signed() : nil
            renewalInfos[originalTransactionID] = renewalInfo(
                flags: flags, originalTransactionID: originalTransactionID, autoRenewProductID: autoRenewProductID,
                grace: grace, intent: intent, signed: signed)
        }
        return UserFacts(transactions: transactions, renewalInfos: renewalInfos)
    }

    /// A transaction from its decoded ids and dates and the fields after the dates, laid out
    /// the same in both versions (optional string refs, environment, product type).
    static func transaction(
        flags: UInt64, ids: (String, String, String), dates: (Int64, Int64, Int64?, Int64?),
        refs: StringRefs, reader: inout RecordReader
    ) throws(Malformed) -> Transaction {
        let group = try refs.optionalString(&reader)
        let webOrder = try refs.optionalString(&reader)
        let ownership = try refs.optionalString(&reader)
        let token = try refs.optionalString(&reader)
        let environment = try reader.varint()
        let productType = try reader.varint()
        guard environment < environments.count, productType <= productTypes.count else {
            throw Malformed()
        }
        return Transaction(
            transactionID: ids.0, originalTransactionID: ids.1, productID: ids.2,
            purchaseDateMs: dates.0, originalPurchaseDateMs: dates.1, expiresDateMs: dates.2,
            cancellationDateMs: dates.3, isTrialPeriod: flags & 4 != 0,
            isInIntroOfferPeriod: flags & 8 != 0, isUpgraded: flags & 16 != 0,
            subscriptionGroupIdentifier: group, webOrderLineItemID: webOrder, inAppOwnershipType: ownership,
            appAccountToken: token, environment: environments[Int(environment)],
            declaredProductType: productType == 0 ? nil : productTypes[Int(productType - 1)])
    }

    static func renewalInfo(
        flags: UInt64, originalTransactionID: String, autoRenewProductID: String?, grace: Int64?, intent: Int64?,
        signed: Int64
    ) -> RenewalInfo {
        RenewalInfo(
            originalTransactionID: originalTransactionID, autoRenewStatus: flags & 1 != 0,
            autoRenewProductID: autoRenewProductID, isInBillingRetryPeriod: flags & 2 != 0,
            gracePeriodExpiresDateMs: grace, expirationIntent: intent.map { Int(truncatingIfNeeded: $0) },
            signedDateMs: signed)
    }
}

/// Strings in first-use order, each byte sequence once.
private struct StringTable {
    var values: [String] = []
    var indexes: [ExactID: UInt64] = [:]

    /// Reserved for about `capacity` distinct strings: growing the dictionary rehashes every
    /// string it holds (a record's ids are mostly distinct: transaction and web order ids).
    init(capacity: Int) {
        values.reserveCapacity(capacity)
        indexes.reserveCapacity(capacity)
    }

    /// Keyed by bytes, not by String equality (Unicode equivalence: "é" would find "e\u{301}"),
    /// so every string reads back byte for byte as the tables hold it; one hash per string,
    /// found or inserted in the same dictionary access (a String key hashed a new string twice
    /// and then compared its bytes again: ~1,200 instructions a lookup, 37 per distinct write).
    mutating func index(_ string: String) -> UInt64 {
        let next = UInt64(values.count)
        let index = Self.current(&indexes[ExactID(string), default: next])
        if index == next { values.append(string) }
        return index
    }

    /// The value an inout access left in place: through the dictionary's `default:` subscript,
    /// the found one or the default just inserted.
    private static func current(_ value: inout UInt64) -> UInt64 { value }

    /// 0 for nil, index + 1 otherwise.
    mutating func optionalIndex(_ string: String?) -> UInt64 {
        string.map { index($0) + 1 } ?? 0
    }
}

/// Which strings a record may store as a number: exactly the text `String(value)` gives back,
/// 1 to 18 ASCII digits without a leading zero ("0" itself included), so "0123", "+1", " 1" or
/// a 19-digit id stay text and every string reads back byte for byte.
enum DecimalText {
    /// Read from the string's own bytes when they are contiguous (native and small strings):
    /// through the generic `String.UTF8View` walk a 16-digit id cost ~700 instructions, and a
    /// distinct SubmitReceipt call converts ~37 of them (~26k, callgrind).
    static func value(_ string: String) -> UInt64? {
        if let value = string.utf8.withContiguousStorageIfAvailable({ value(utf8: $0) }) { return value }
        return value(utf8: string.utf8)
    }

    /// ``value(_:)`` of a string's UTF-8 bytes (a slice of a longer text, say).
    static func value<Bytes: Collection<UInt8>>(utf8: Bytes) -> UInt64? {
        guard (1...18).contains(utf8.count), utf8.first != UInt8(ascii: "0") || utf8.count == 1 else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `String(value)` for a value under 10^18 (a record's numeric string, an event id's
    /// number), through SQLite's ``Statement/decimalText(_:)``: a stack buffer, not the generic
    /// integer-printing path, which cost ~1,200 of the ~64,500 instructions of a CheckEntitlement
    /// that misses the facts cache (cachegrind, 1M x 3 set: a miss decodes 4 numeric ids there).
    static func text(_ value: UInt64) -> String { Statement.decimalText(Int64(value)) }
}
