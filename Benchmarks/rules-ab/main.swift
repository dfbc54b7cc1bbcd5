/// rules-ab: EntitlementRules.check per call, base vs current, interleaved so a busy machine
/// disturbs both alike. Built by Benchmarks/rules-ab.sh; prints figures, asserts nothing.
import Baseline
import Current
import Glibc

/// A typical user: a year of monthly renewals with renewal info, a refunded older chain and a
/// lifetime purchase, asked about at now and at an instant in the past.
func facts<T, R, F>(
    transaction: (String, String, String, Int64, Int64?, Int64?) -> T,
    renewal: (String, Int64) -> R, make: ([T], [String: R]) -> F
) -> F {
    let day: Int64 = 86_400_000, start: Int64 = 1_704_067_200_000
    var transactions: [T] = []
    for month in 0..<12 {
        transactions.append(transaction(String(2000 + month), "2000", "pro.monthly", start + Int64(month) * 30 * day,
                                        start + Int64(month + 1) * 30 * day, nil))
    }
    transactions.append(
        transaction("1000", "1000", "pro.yearly", start - 400 * day, start - 35 * day, start - 200 * day))
    transactions.append(transaction("3000", "3000", "lifetime", start, nil, nil))
    return make(transactions, ["2000": renewal("2000", start + 330 * day)])
}

let baseFacts = facts(
    transaction: { Baseline.Transaction(transactionID: $0, originalTransactionID: $1, productID: $2, purchaseDateMs: $3,
                                        expiresDateMs: $4, cancellationDateMs: $5) },
    renewal: { Baseline.RenewalInfo(originalTransactionID: $0, autoRenewStatus: true, signedDateMs: $1) },
    make: { Baseline.UserFacts(transactions: $0, renewalInfos: $1) })
let currentFacts = facts(
    transaction: { Current.Transaction(transactionID: $0, originalTransactionID: $1, productID: $2, purchaseDateMs: $3,
                                       expiresDateMs: $4, cancellationDateMs: $5) },
    renewal: { Current.RenewalInfo(originalTransactionID: $0, autoRenewStatus: true, signedDateMs: $1) },
    make: { Current.UserFacts(transactions: $0, renewalInfos: $1) })

let instants: [Int64] = [1_704_067_200_000 + 345 * 86_400_000, 1_704_067_200_000 + 100 * 86_400_000]
let calls = 200_000
var sink = 0

/// Nanoseconds per check over `calls` calls, alternating the two instants and the filters;
/// the answers' sizes are summed into `sink` so the optimizer cannot drop the calls.
@MainActor
func perCall(_ check: (Int64, Bool) -> Int) -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var total = 0
    for i in 0..<calls { total &+= check(instants[i & 1], i & 2 == 0) }
    let parts = (clock.now - start).components
    sink &+= total
    return (Double(parts.seconds) * 1e18 + Double(parts.attoseconds)) / 1e9 / Double(calls)
}

/// RULES_AB_ONLY=base|current runs one side once, for instruction counts under
/// `valgrind --tool=cachegrind --cache-sim=no` (exact where timings on a busy machine are not).
let only = getenv("RULES_AB_ONLY").map { String(cString: $0) }
if let only {
    let instructions = perCall { t, filtered in
        only == "base"
            ? Baseline.EntitlementRules.check(baseFacts, productID: filtered ? "pro.monthly" : "", entitlementID: "",
                                              at: .at(t), catalog: .empty).entitlements.count
            : Current.EntitlementRules.check(currentFacts, productID: filtered ? "pro.monthly" : "",
                                             entitlementID: "", at: .at(t), catalog: .empty).entitlements.count
    }
    print("\(only): \(Int(instructions)) ns/call (one round)")
    exit(0)
}

let rounds = 31
var base: [Double] = [], current: [Double] = []
// Which one runs first alternates, so neither always gets the warmer (or the colder) turn.
for round in 0..<rounds {
    for turn in 0..<2 {
        if (round + turn) % 2 == 0 {
            base.append(perCall { t, filtered in
                Baseline.EntitlementRules.check(baseFacts, productID: filtered ? "pro.monthly" : "",
                                                entitlementID: "", at: .at(t), catalog: .empty).entitlements.count
            })
        } else {
            current.append(perCall { t, filtered in
                Current.EntitlementRules.check(currentFacts, productID: filtered ? "pro.monthly" : "",
                                               entitlementID: "", at: .at(t), catalog: .empty).entitlements.count
            })
        }
    }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("EntitlementRules.check, 14 transactions in 3 chains, \(calls) calls x \(rounds) rounds, interleaved")
print("  base:    median \(Int(median(base))) ns/call, best \(Int(base.min()!)) ns/call")
print("  current: median \(Int(median(current))) ns/call, best \(Int(current.min()!)) ns/call")
print("  (sink \(sink & 1))")
