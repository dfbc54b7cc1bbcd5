import Entitlements

/// Dates as days after 2024-01-01T00:00:00Z, so tables read like a calendar.
enum Day {
    static let ms: Int64 = 86_400_000
    static let epoch: Int64 = 1_704_067_200_000
    static func at(_ day: Int64, hours: Int64 = 0) -> Int64 { epoch + day * ms + hours * 3_600_000 }

    static let jan1 = at(0), feb1 = at(31), mar1 = at(60), apr1 = at(91), apr15 = at(105)
    static let may1 = at(121), jun1 = at(152), jul1 = at(182), aug1 = at(213)
}

/// An auto-renewable period in chain `chain`; everything else defaulted to the common case.
func period(
    _ id: String, chain: String = "1000", product: String = "pro.monthly",
    bought: Int64, expires: Int64?, refunded: Int64? = nil, upgraded: Bool = false,
    trial: Bool = false, intro: Bool = false, group: String? = "group.pro",
    environment: Environment = .production, declared: ProductType? = nil
) -> Transaction {
    Transaction(
        transactionID: id, originalTransactionID: chain, productID: product,
        purchaseDateMs: bought, expiresDateMs: expires, cancellationDateMs: refunded,
        isTrialPeriod: trial, isInIntroOfferPeriod: intro, isUpgraded: upgraded,
        subscriptionGroupIdentifier: group, environment: environment, declaredProductType: declared)
}

/// A one-off purchase (no expiry): non-consumable by shape, or whatever `declared` says.
func purchase(
    _ id: String, chain: String? = nil, product: String, bought: Int64, refunded: Int64? = nil,
    declared: ProductType? = nil
) -> Transaction {
    Transaction(
        transactionID: id, originalTransactionID: chain ?? id, productID: product,
        purchaseDateMs: bought, cancellationDateMs: refunded, subscriptionGroupIdentifier: nil,
        declaredProductType: declared)
}

func renewal(
    chain: String = "1000", autoRenew: Bool = true, retrying: Bool = false, grace: Int64? = nil,
    signed: Int64
) -> [String: RenewalInfo] {
    [chain: RenewalInfo(
        originalTransactionID: chain, autoRenewStatus: autoRenew, isInBillingRetryPeriod: retrying,
        gracePeriodExpiresDateMs: grace, signedDateMs: signed)]
}

func catalog(_ json: String, file: String = "catalog.json") throws(CatalogError) -> Catalog {
    try Catalog(jsonBytes: Array(json.utf8), sourceName: file)
}

/// Every ordering of `elements` (Heap's algorithm), to prove array order means nothing.
func permutations<Element>(of elements: [Element]) -> [[Element]] {
    var result: [[Element]] = []
    var working = elements
    func generate(_ count: Int) {
        guard count > 1 else { result.append(working); return }
        for index in 0..<count - 1 {
            generate(count - 1)
            working.swapAt(count.isMultiple(of: 2) ? index : 0, count - 1)
        }
        generate(count - 1)
    }
    generate(working.count)
    return result
}
