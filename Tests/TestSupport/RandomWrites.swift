import EntitlementPorts
import Entitlements
import SeededRandom

/// Seeded rounds of writes for the suites that check the facts cache against the database:
/// receipts (new chains, renewals, cancellations, chains moving between users) and V2
/// notifications, several per round so they share a writer batch. The same seed gives the same
/// rounds, so a failure names a round that can be replayed.
public struct RandomWrites {
    /// The users receipts come from: two of them are canonically equivalent spellings (`zoë` as
    /// one scalar and as `e` plus a combining diaeresis), which the store keeps apart by bytes.
    public static let users = ["ann", "bo", "cy", "zo\u{EB}", "zoe\u{308}"]

    /// One round: the receipts and the notifications to send at once.
    public struct Round {
        public var receipts: [FactsWrite] = []
        public var notifications: [NotificationWrite] = []
    }

    private var random: SplitMix64
    private let chains: Int
    private let maxChainsPerWrite: Int
    private let maxTransactionsPerChain: Int
    private let products: [String]
    private var nextTransaction = 1_000

    /// Writes over `chains` chain ids, each touching up to `maxChainsPerWrite` chains with up to
    /// `maxTransactionsPerChain` new transactions of one of `products` each.
    public init(seed: UInt64, chains: Int, maxChainsPerWrite: Int, maxTransactionsPerChain: Int,
                products: [String] = ["com.example.monthly"]) {
        random = SplitMix64(seed: seed)
        self.chains = chains
        self.maxChainsPerWrite = maxChainsPerWrite
        self.maxTransactionsPerChain = maxTransactionsPerChain
        self.products = products
    }

    /// The writes of round `round` (its number dates renewal infos, so later rounds sign later).
    public mutating func next(_ round: Int) -> Round {
        var writes = Round()
        for _ in 0..<(1 + below(4)) {
            let touched = (0..<(1 + below(maxChainsPerWrite))).map { _ in below(chains) }
            var transactions: [Transaction] = []
            for chain in touched {
                transactions += (0..<(1 + below(maxTransactionsPerChain))).map { _ in transaction(chain: chain) }
            }
            let renewals = touched.filter { _ in below(2) == 0 }.map {
                RenewalInfo(originalTransactionID: "c\($0)", autoRenewStatus: below(2) == 0,
                            signedDateMs: Int64(round * 10 + below(10)))
            }
            if below(4) == 0 {
                writes.notifications.append(Fixture.notification("n\(round)-\(writes.notifications.count)",
                                                                 transactions: transactions, renewals: renewals))
            } else {
                writes.receipts.append(Fixture.receipt(Self.users[below(Self.users.count)], transactions,
                                                       renewals: renewals))
            }
        }
        return writes
    }

    /// A subscription transaction in chain `c<chain>`, bought on one of 90 days, one in six
    /// cancelled an hour later (a refund or revocation as the store sees it).
    private mutating func transaction(chain: Int) -> Transaction {
        nextTransaction += 1
        let purchasedAt = 1_700_000_000_000 + Int64(below(90)) * 86_400_000
        let cancelled: Int64? = below(6) == 0 ? purchasedAt + 3_600_000 : nil
        let product = products.count == 1 ? products[0] : products[below(products.count)]
        return Fixture.subscription(String(nextTransaction), chain: "c\(chain)", product: product,
                                    purchasedAt: purchasedAt, cancelledAt: cancelled)
    }

    private mutating func below(_ bound: Int) -> Int { Int(random.next(upperBound: UInt64(bound))) }
}
