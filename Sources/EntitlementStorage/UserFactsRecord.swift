import Entitlements

/// The compact binary form of a user's ``UserFacts`` kept in `user_facts` (the read model):
/// one row per user, so a facts-cache miss is one B-tree lookup instead of six.
///
/// The normalized tables stay the source of truth; the writer rewrites a user's record in the
/// same transaction as any change to their facts, and a reader that finds no record (a database
/// from before this table, a user never written since) or one it cannot decode reads the tables
/// instead. Layout, all integers LEB128 varints (signed ones zigzagged):
///
///     version (1) | strings: count, then length + UTF-8 bytes each
///     | transactions: count, then per transaction flags, string refs, dates, enum indexes
///     | renewal infos: count, then per info flags, string refs, dates
///
/// Every string is written once and referenced by index (an original transaction id, product
/// and group repeat on each transaction of a chain). A layout change gets a new version; an
/// unknown version reads as "no record", so an old binary on a newer file still answers.
enum UserFactsRecord {
    static let version: UInt8 = 1

    struct Malformed: Error, CustomStringConvertible {
        var description: String { "a user_facts record is malformed; the tables are read instead" }
    }

    static func encode(_ facts: UserFacts) -> [UInt8] {
        var strings = StringTable()
        var body: [UInt8] = []
        body.reserveCapacity(64 * facts.transactions.count + 32)
        body.appendVarint(UInt64(facts.transactions.count))
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
            body.appendSigned(transaction.purchaseDateMs)
            body.appendSigned(transaction.originalPurchaseDateMs)
            if let expires = transaction.expiresDateMs { body.appendSigned(expires) }
            if let cancellation = transaction.cancellationDateMs { body.appendSigned(cancellation) }
            body.appendVarint(strings.optionalIndex(transaction.subscriptionGroupIdentifier))
            body.appendVarint(strings.optionalIndex(transaction.webOrderLineItemID))
            body.appendVarint(strings.optionalIndex(transaction.inAppOwnershipType))
            body.appendVarint(strings.optionalIndex(transaction.appAccountToken))
            body.appendVarint(UInt64(Environment.allCases.firstIndex(of: transaction.environment)!))
            let productType = transaction.declaredProductType.map { ProductType.allCases.firstIndex(of: $0)! + 1 }
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
            if let grace = info.gracePeriodExpiresDateMs { body.appendSigned(grace) }
            if let intent = info.expirationIntent { body.appendSigned(Int64(intent)) }
            body.appendSigned(info.signedDateMs)
        }
        var record: [UInt8] = [version]
        record.reserveCapacity(body.count + 16 * strings.values.count)
        record.appendVarint(UInt64(strings.values.count))
        for string in strings.values {
            record.appendVarint(UInt64(string.utf8.count))
            record.append(contentsOf: string.utf8)
        }
        record.append(contentsOf: body)
        return record
    }

    /// Decodes a record; nil for a version this binary does not know.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> UserFacts? {
        var reader = RecordReader(bytes)
        guard try reader.byte() == version else { return nil }
        let stringCount = try reader.count()
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        for _ in 0..<stringCount { strings.append(try reader.string()) }
        func string() throws(Malformed) -> String {
            let index = try reader.varint()
            guard index < strings.count else { throw Malformed() }
            return strings[Int(index)]
        }
        func optionalString() throws(Malformed) -> String? {
            let index = try reader.varint()
            guard index > 0 else { return nil }
            guard index <= strings.count else { throw Malformed() }
            return strings[Int(index - 1)]
        }
        var facts = UserFacts()
        let transactionCount = try reader.count()
        facts.transactions.reserveCapacity(transactionCount)
        for _ in 0..<transactionCount {
            let flags = try reader.varint()
            let transactionID = try string()
            let originalTransactionID = try string()
            let productID = try string()
            let purchase = try reader.signed()
            let originalPurchase = try reader.signed()
            let expires = flags & 1 != 0 ? try reader.signed() : nil
            let cancellation = flags & 2 != 0 ? try reader.signed() : nil
            let group = try optionalString()
            let webOrder = try optionalString()
            let ownership = try optionalString()
            let token = try optionalString()
            let environment = try reader.varint()
            let productType = try reader.varint()
            guard environment < Environment.allCases.count, productType <= ProductType.allCases.count else {
                throw Malformed()
            }
            facts.transactions.append(Transaction(
                transactionID: transactionID, originalTransactionID: originalTransactionID, productID: productID,
                purchaseDateMs: purchase, originalPurchaseDateMs: originalPurchase, expiresDateMs: expires,
                cancellationDateMs: cancellation, isTrialPeriod: flags & 4 != 0,
                isInIntroOfferPeriod: flags & 8 != 0, isUpgraded: flags & 16 != 0,
                subscriptionGroupIdentifier: group, webOrderLineItemID: webOrder, inAppOwnershipType: ownership,
                appAccountToken: token, environment: Environment.allCases[Int(environment)],
                declaredProductType: productType == 0 ? nil : ProductType.allCases[Int(productType - 1)]))
        }
        let renewalCount = try reader.count()
        for _ in 0..<renewalCount {
            let flags = try reader.varint()
            let originalTransactionID = try string()
            let autoRenewProductID = try optionalString()
            let grace = flags & 4 != 0 ? try reader.signed() : nil
            let intent = flags & 8 != 0 ? try reader.signed() : nil
            let signed = try reader.signed()
            facts.renewalInfos[originalTransactionID] = RenewalInfo(
                originalTransactionID: originalTransactionID, autoRenewStatus: flags & 1 != 0,
                autoRenewProductID: autoRenewProductID, isInBillingRetryPeriod: flags & 2 != 0,
                gracePeriodExpiresDateMs: grace, expirationIntent: intent.map { Int(truncatingIfNeeded: $0) },
                signedDateMs: signed)
        }
        guard reader.isAtEnd else { throw Malformed() }
        return facts
    }
}

/// Strings in first-use order, each once.
private struct StringTable {
    var values: [String] = []
    var indexes: [String: UInt64] = [:]

    mutating func index(_ string: String) -> UInt64 {
        if let index = indexes[string] { return index }
        let index = UInt64(values.count)
        values.append(string)
        indexes[string] = index
        return index
    }

    /// 0 for nil, index + 1 otherwise.
    mutating func optionalIndex(_ string: String?) -> UInt64 {
        string.map { index($0) + 1 } ?? 0
    }
}

extension [UInt8] {
    fileprivate mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    fileprivate mutating func appendSigned(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }
}

/// A bounds-checked cursor over a record's bytes.
private struct RecordReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(UserFactsRecord.Malformed) -> UInt8 {
        guard offset < bytes.count else { throw UserFactsRecord.Malformed() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws(UserFactsRecord.Malformed) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw UserFactsRecord.Malformed() }
            value |= UInt64(next & 0x7f) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() throws(UserFactsRecord.Malformed) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count no larger than the bytes left could hold (one byte per item at least), so a
    /// corrupt count cannot make the decoder reserve gigabytes.
    mutating func count() throws(UserFactsRecord.Malformed) -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - offset) else { throw UserFactsRecord.Malformed() }
        return Int(value)
    }

    mutating func string() throws(UserFactsRecord.Malformed) -> String {
        let length = try count()
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }
}
