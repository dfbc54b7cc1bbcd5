import Entitlements

extension UserFactsRecord {
    /// Decodes version 3 (the layout ``encode(_:)`` writes, described on ``UserFactsRecord``).
    package static func decodeVersion3(
        _ reader: inout RecordReader, name: (Int64) -> String?
    ) throws(Malformed) -> UserFacts {
        let refs = StringRefs(strings: try decodeStringsVersion3(&reader, name: name))
        // Built in locals and handed to UserFacts once: its properties' observers would run on
        // every append and insertion otherwise.
        let transactionCount = try reader.count()
        var transactions: [Transaction] = []
        transactions.reserveCapacity(transactionCount)
        var previous: (purchase: Int64, originalPurchase: Int64, expires: Int64?)?
        for _ in 0..<transactionCount {
            let flags = try reader.varint()
            guard flags < 256 else { throw Malformed() }
            let transactionID = try refs.string(&reader)
            let originalTransactionID = try refs.string(&reader)
            let productID = try refs.string(&reader)
            let purchase = if let previous {
                try reader.span() &+ (previous.expires ?? previous.purchase)
            } else {
                try reader.signed()
            }
            let originalPurchase = try reader.span() &+ (previous?.originalPurchase ?? purchase)
            let expires = flags & 1 != 0 ? try reader.span() &+ purchase : nil
            let cancellation = flags & 2 != 0 ? try reader.span() &+ purchase : nil
            previous = (purchase, originalPurchase, expires)
            let group = try refs.optionalString(&reader)
            let webOrder = try refs.optionalString(&reader)
            let ownership: String? = switch OwnershipFlag(rawValue: flags >> 5 & 3)! {
            case .none: nil
            case .purchased: OwnershipTypeText.purchased
            case .familyShared: OwnershipTypeText.familyShared
            case .other: try refs.string(&reader)
            }
            let token = flags & 128 != 0 ? try refs.string(&reader) : nil
            let kind = try reader.varint()
            let environment = Int(kind % UInt64(environments.count))
            let productType = kind / UInt64(environments.count)
            guard productType <= productTypes.count else { throw Malformed() }
            transactions.append(Transaction(
                transactionID: transactionID, originalTransactionID: originalTransactionID, productID: productID,
                purchaseDateMs: purchase, originalPurchaseDateMs: originalPurchase, expiresDateMs: expires,
                cancellationDateMs: cancellation, isTrialPeriod: flags & 4 != 0,
                isInIntroOfferPeriod: flags & 8 != 0, isUpgraded: flags & 16 != 0,
                subscriptionGroupIdentifier: group, webOrderLineItemID: webOrder, inAppOwnershipType: ownership,
                appAccountToken: token, environment: environments[environment],
                declaredProductType: productType == 0 ? nil : productTypes[Int(productType - 1)]))
        }
        let renewalInfos = try decodeRenewalInfos(
            &reader, refs: refs, lastPurchase: transactions.last?.purchaseDateMs ?? 0)
        return UserFacts(transactions: transactions, renewalInfos: renewalInfos)
    }

    /// Renewal infos: count, then per info flags, the chain's ref, the product's optional ref,
    /// the signed date as a span from the record's last purchase, the grace period as a span
    /// from the signed date, the intent.
    private static func decodeRenewalInfos(
        _ reader: inout RecordReader, refs: StringRefs, lastPurchase: Int64
    ) throws(Malformed) -> [String: RenewalInfo] {
        let renewalCount = try reader.count()
        var renewalInfos: [String: RenewalInfo] = [:]
        for _ in 0..<renewalCount {
            let flags = try reader.varint()
            let originalTransactionID = try refs.string(&reader)
            let autoRenewProductID = try refs.optionalString(&reader)
            let signed = try reader.span() &+ lastPurchase
            let grace = flags & 4 == 0 ? nil : try reader.span() &+ signed
            let intent = flags & 8 != 0 ? try reader.signed() : nil
            renewalInfos[originalTransactionID] = RenewalInfo(
                originalTransactionID: originalTransactionID, autoRenewStatus: flags & 1 != 0,
                autoRenewProductID: autoRenewProductID, isInBillingRetryPeriod: flags & 2 != 0,
                gracePeriodExpiresDateMs: grace, expirationIntent: intent.map { Int(truncatingIfNeeded: $0) },
                signedDateMs: signed)
        }
        return renewalInfos
    }

    /// The string table: the numbers, each the one before plus a difference (ascending, all
    /// below 10^18 as ``DecimalText`` writes them); the `product_names` rows, each the one
    /// before plus a difference, as `name` reads them; then the other strings.
    private static func decodeStringsVersion3(
        _ reader: inout RecordReader, name: (Int64) -> String?
    ) throws(Malformed) -> [String] {
        let stringCount = try reader.count()
        let numberCount = try reader.varint()
        let nameCount = try reader.varint()
        guard numberCount <= UInt64(stringCount), nameCount <= UInt64(stringCount) - numberCount else {
            throw Malformed()
        }
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        var number: UInt64 = 0
        for _ in 0..<numberCount {
            let step = try reader.varint()
            // `number` is below the limit, so the subtraction cannot wrap.
            guard step < DecimalText.limit - number else { throw Malformed() }
            number += step
            strings.append(DecimalText.text(number))
        }
        var row: Int64 = 0
        for _ in 0..<nameCount {
            let step = try reader.varint()
            guard step <= UInt64(Int64.max - row) else { throw Malformed() }
            row += Int64(step)
            guard let text = name(row) else { throw Malformed() }
            strings.append(text)
        }
        for _ in Int(numberCount + nameCount)..<stringCount { strings.append(try reader.string()) }
        return strings
    }
}

/// How version 3 stores a transaction's ownership type (two bits of its flags): the two names
/// Apple sends on nearly every transaction as codes, anything else as a string of the table.
/// Compared byte for byte, so only those exact names become codes and every text reads back
/// as it was.
package enum OwnershipFlag: UInt64 {
    case none = 0, purchased, familyShared, other

    package init(_ ownershipType: String?) {
        guard let ownershipType else { self = .none; return }
        if ownershipType.hasSameBytes(as: OwnershipTypeText.purchased) {
            self = .purchased
        } else if ownershipType.hasSameBytes(as: OwnershipTypeText.familyShared) {
            self = .familyShared
        } else {
            self = .other
        }
    }
}

/// References into a record's string table: by index, or index + 1 with 0 for nil.
package struct StringRefs {
    package let strings: [String]

    package func string(_ reader: inout RecordReader) throws(UserFactsRecord.Malformed) -> String {
        let index = try reader.varint()
        guard index < strings.count else { throw UserFactsRecord.Malformed() }
        return strings[Int(index)]
    }

    package func optionalString(_ reader: inout RecordReader) throws(UserFactsRecord.Malformed) -> String? {
        let index = try reader.varint()
        guard index > 0 else { return nil }
        guard index <= strings.count else { throw UserFactsRecord.Malformed() }
        return strings[Int(index - 1)]
    }
}
