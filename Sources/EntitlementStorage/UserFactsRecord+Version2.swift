import Entitlements

extension UserFactsRecord {
    /// Records written as version 2 (issue 14 goal 2, until version 3) stay readable as they
    /// are until the user's next write rewrites them. Frozen with the format: never change it.
    ///
    ///     version (2) | strings: count, then a tag each: odd, a decimal number (tag >> 1) standing
    ///         for its canonical digits; even, tag >> 1 bytes of UTF-8 follow
    ///     | transactions: count, then per transaction flags, string refs, dates, enum indexes
    ///     | renewal infos: count, then per info flags, string refs, dates
    ///
    /// Dates are differences: a purchase from the previous transaction's, an original purchase
    /// from the previous transaction's original purchase, expiry and cancellation from the
    /// transaction's own purchase, a grace period from the info's signed date.
    static func decodeVersion2(_ reader: inout RecordReader) throws(Malformed) -> UserFacts {
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
        let renewalInfos = try decodeRenewalInfos(&reader, refs: refs)
        return UserFacts(transactions: transactions, renewalInfos: renewalInfos)
    }

    /// Renewal infos as versions 2 and 3 lay them out: count, then per info flags, the chain's
    /// ref, the product's optional ref, the signed date, the grace period from it, the intent.
    /// Version 2 (`lastPurchase` nil) writes the signed date whole and the grace period as a
    /// plain difference; version 3 both as spans, the signed date from the record's last purchase.
    static func decodeRenewalInfos(
        _ reader: inout RecordReader, refs: StringRefs, spansFrom lastPurchase: Int64? = nil
    ) throws(Malformed) -> [String: RenewalInfo] {
        let renewalCount = try reader.count()
        var renewalInfos: [String: RenewalInfo] = [:]
        for _ in 0..<renewalCount {
            let flags = try reader.varint()
            let originalTransactionID = try refs.string(&reader)
            let autoRenewProductID = try refs.optionalString(&reader)
            let signed = if let lastPurchase { try reader.span() &+ lastPurchase } else { try reader.signed() }
            let grace = flags & 4 == 0 ? nil : try (lastPurchase == nil ? reader.signed() : reader.span()) &+ signed
            let intent = flags & 8 != 0 ? try reader.signed() : nil
            renewalInfos[originalTransactionID] = renewalInfo(
                flags: flags, originalTransactionID: originalTransactionID, autoRenewProductID: autoRenewProductID,
                grace: grace, intent: intent, signed: signed)
        }
        return renewalInfos
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
