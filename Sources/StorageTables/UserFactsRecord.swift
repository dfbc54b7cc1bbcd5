import Entitlements

/// The compact binary form of a user's ``UserFacts`` kept in `user_facts` (the read model):
/// one row per user, so a facts-cache miss is one B-tree lookup instead of six.
///
/// The normalized tables stay the source of truth; the writer rewrites a user's record in the
/// same transaction as any change to their facts, and a reader that finds no record (a database
/// from before this table, a user never written since) or one it cannot decode reads the tables
/// instead. Layout of version 3, all integers LEB128 varints (signed ones zigzagged):
///
///     version (3) | strings: count, how many are numbers, how many are names; the numbers
///         (canonical decimal ids, ``DecimalText``) in ascending order, each as its difference
///         from the one before (the first from 0); the names (product and group ids) as their
///         `product_names` rows, ascending, as differences the same way; then the other
///         strings, length and UTF-8 bytes each
///     | transactions: count, then per transaction flags, string refs, dates, optional refs,
///         one kind number (product type and environment)
///     | renewal infos: count, then per info flags, string refs, dates
///
/// Every string is written once and referenced by index (numbers, then names, in their order;
/// then the others in first-use order). Version 3 is smaller than the versions before it:
/// Apple's numeric ids of one user are close together (a user's transaction and web
/// order ids come from Apple's counters within months of each other), so sorted differences
/// take 3-5 bytes instead of 8; a product or group id is its `product_names` row (a byte or two
/// instead of the id's text in every user's record: the app's few products are stored once,
/// and a reader keeps the rows it has read, which never change or go); a renewal's purchase
/// date is stored from the previous transaction's
/// expiry (Apple starts a renewal where the last period ended: one byte instead of five); every
/// date difference is a span in the largest unit that divides it (``Swift/Array/appendSpan(_:)``:
/// Apple's periods are whole days in production, whole minutes in the sandbox); a renewal
/// info's signed date is a span from the record's last purchase; the two ownership types Apple
/// sends are flags, not strings; an absent account token costs nothing; product type and
/// environment share a byte. Differences wrap (`&-`, `&+`), so every Int64 comes back exactly.
/// Only version 3 decodes: migration `user_facts_drop_formats_1_and_2` deleted the records of
/// versions 1 and 2, and the store builds their users' records again from the tables when it
/// opens (``FactsRecorder/rewriteRecords(limit:)``). A layout change gets
/// a new version, and an unknown version reads as "no record", so an old binary on a newer
/// file still answers (from the tables).
package enum UserFactsRecord {
    package static let version: UInt8 = 3
    /// The enums' cases in the order their indexes are stored (`allCases`' order, part of the
    /// format), built once: `allCases` allocates a new array on every call, two per
    /// transaction decoded (~250 instructions a record, callgrind).
    package static let environments = Environment.allCases
    package static let productTypes = ProductType.allCases

    package struct Malformed: Error, CustomStringConvertible {
        package var description: String { "a user_facts record is malformed; the tables are read instead" }
    }

    /// `nameRow` gives the `product_names` row of a product or group id when it has one (the
    /// writer's lookup, in the transaction that commits the record); nil keeps it as text.
    package static func encode(_ facts: UserFacts, nameRow: (String) -> Int64? = { _ in nil }) -> [UInt8] {
        let capacity = 3 * facts.transactions.count + 2 * facts.renewalInfos.count + 4
        var strings = StringTable(capacity: capacity)
        // The body refers to strings by their final index, known only once every string is
        // in the table (numbers go first, in order): a first pass collects them and notes
        // each reference's first-use index; the second writes the body with the final ones.
        var used: [UInt64] = []
        used.reserveCapacity(capacity + 2 * facts.transactions.count)
        var draft: [UInt8] = []
        draft.reserveCapacity(32 * facts.transactions.count + 32)
        writeBody(facts, into: &draft) { string, isName in
            let index = strings.index(string, isName: isName)
            used.append(index)
            return index
        }
        let layout = strings.layout(nameRow: nameRow)
        var record: [UInt8] = [version]
        record.reserveCapacity(draft.count + 8 * strings.values.count + 8)
        record.appendVarint(UInt64(strings.values.count))
        record.appendVarint(UInt64(layout.numbers.count))
        record.appendVarint(UInt64(layout.nameRows.count))
        var previousNumber: UInt64 = 0
        for number in layout.numbers {
            record.appendVarint(number - previousNumber)
            previousNumber = number
        }
        var previousRow: Int64 = 0
        for row in layout.nameRows {
            record.appendVarint(UInt64(row - previousRow))
            previousRow = row
        }
        for text in layout.texts {
            record.appendVarint(UInt64(text.utf8.count))
            record.append(contentsOf: text.utf8)
        }
        var next = 0
        writeBody(facts, into: &record) { _, _ in
            defer { next += 1 }
            return layout.finalIndexes[Int(used[next])]
        }
        return record
    }

    /// The transactions and renewal infos, with `reference` giving each string's index (called
    /// in the same order on every run over the same facts; true for a product or group id).
    private static func writeBody(
        _ facts: UserFacts, into body: inout [UInt8], reference: (String, Bool) -> UInt64
    ) {
        body.appendVarint(UInt64(facts.transactions.count))
        var previous: (purchase: Int64, originalPurchase: Int64, expires: Int64?)?
        for transaction in facts.transactions {
            let ownership = OwnershipFlag(transaction.inAppOwnershipType)
            var flags: UInt64 = ownership.rawValue << 5
            if transaction.expiresDateMs != nil { flags |= 1 }
            if transaction.cancellationDateMs != nil { flags |= 2 }
            if transaction.isTrialPeriod { flags |= 4 }
            if transaction.isInIntroOfferPeriod { flags |= 8 }
            if transaction.isUpgraded { flags |= 16 }
            if transaction.appAccountToken != nil { flags |= 128 }
            body.appendVarint(flags)
            body.appendVarint(reference(transaction.transactionID, false))
            body.appendVarint(reference(transaction.originalTransactionID, false))
            body.appendVarint(reference(transaction.productID, true))
            let purchase = transaction.purchaseDateMs
            if let previous {
                body.appendSpan(purchase &- (previous.expires ?? previous.purchase))
            } else {
                body.appendSigned(purchase)
            }
            body.appendSpan(transaction.originalPurchaseDateMs &- (previous?.originalPurchase ?? purchase))
            if let expires = transaction.expiresDateMs { body.appendSpan(expires &- purchase) }
            if let cancellation = transaction.cancellationDateMs { body.appendSpan(cancellation &- purchase) }
            previous = (purchase, transaction.originalPurchaseDateMs, transaction.expiresDateMs)
            body.appendVarint(transaction.subscriptionGroupIdentifier.map { reference($0, true) + 1 } ?? 0)
            body.appendVarint(transaction.webOrderLineItemID.map { reference($0, false) + 1 } ?? 0)
            if ownership == .other, let text = transaction.inAppOwnershipType {
                body.appendVarint(reference(text, false))
            }
            if let token = transaction.appAccountToken { body.appendVarint(reference(token, false)) }
            let productType = transaction.declaredProductType.map { productTypes.firstIndex(of: $0)! + 1 } ?? 0
            let environment = environments.firstIndex(of: transaction.environment)!
            body.appendVarint(UInt64(productType * environments.count + environment))
        }
        body.appendVarint(UInt64(facts.renewalInfos.count))
        let lastPurchase = facts.transactions.last?.purchaseDateMs ?? 0
        // Sorted, so equal facts always encode to equal bytes.
        for (_, info) in facts.renewalInfos.sorted(by: { $0.key < $1.key }) {
            var flags: UInt64 = 0
            if info.autoRenewStatus { flags |= 1 }
            if info.isInBillingRetryPeriod { flags |= 2 }
            if info.gracePeriodExpiresDateMs != nil { flags |= 4 }
            if info.expirationIntent != nil { flags |= 8 }
            body.appendVarint(flags)
            body.appendVarint(reference(info.originalTransactionID, false))
            body.appendVarint(info.autoRenewProductID.map { reference($0, true) + 1 } ?? 0)
            body.appendSpan(info.signedDateMs &- lastPurchase)
            if let grace = info.gracePeriodExpiresDateMs { body.appendSpan(grace &- info.signedDateMs) }
            if let intent = info.expirationIntent { body.appendSigned(Int64(intent)) }
        }
    }

    /// Decodes a record; nil for a version this binary does not know. `name` gives the text of
    /// a `product_names` row the record refers to (nil when there is none: the record is
    /// malformed).
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, name: (Int64) -> String? = { _ in nil }
    ) throws(Malformed) -> UserFacts? {
        var reader = RecordReader(bytes)
        let facts: UserFacts
        switch try reader.byte() {
        case version: facts = try decodeVersion3(&reader, name: name)
        default: return nil
        }
        guard reader.isAtEnd else { throw Malformed() }
        return facts
    }
}
