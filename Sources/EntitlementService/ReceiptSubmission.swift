import EntitlementAPI
import EntitlementPorts
import Entitlements
import JWS
import RPCCore
import ServiceRuntime
import Synchronization

/// SubmitReceipt: validate, verify with Apple, store the facts in one write, answer with the
/// user's entitlements after that write.
public struct ReceiptSubmission: Sendable {
    let verifier: ReceiptVerifier
    let repository: any EntitlementRepository
    let catalog: Catalog
    let now: UnixClock
    let recentlyVerified: RecentlyVerified?
    let signedTransactions: SignedTransactionVerifier
    /// The App Store Server API (transaction_id, and receipt_data per ``receiptRoute``); nil
    /// without a key.
    let serverAPI: ServerAPIPurchases?
    let revisions: (any TransactionHistoryRevisions)?
    let receiptRoute: ReceiptRoute
    /// Ownership transfers and refused claims, for the metrics.
    let observeOwnership: OwnershipObserver?
    /// Asks Apple to set the user's app account token on a chain that has none, once a
    /// device's proof bound it to them (nil without the Server API); runs after the answer.
    let setAccountToken: (@Sendable (_ originalTransactionID: String, _ userID: String) async -> Void)?

    /// `verifyCacheTTLMs`: a receipt verified this recently is answered from the store
    /// without calling Apple (nil: always call Apple).
    public init(verifier: ReceiptVerifier, signedTransactions: SignedTransactionVerifier,
                repository: any EntitlementRepository, catalog: Catalog,
                verifyCacheTTLMs: Int64?, now: @escaping UnixClock,
                serverAPI: ServerAPIPurchases? = nil, revisions: (any TransactionHistoryRevisions)? = nil,
                receiptRoute: ReceiptRoute = .verifyReceipt, observeOwnership: OwnershipObserver? = nil,
                setAccountToken: (@Sendable (_ originalTransactionID: String, _ userID: String) async -> Void)? = nil) {
        self.observeOwnership = observeOwnership
        self.setAccountToken = setAccountToken
        self.verifier = verifier
        self.signedTransactions = signedTransactions
        self.serverAPI = serverAPI
        self.revisions = revisions
        self.receiptRoute = serverAPI == nil ? .verifyReceipt : receiptRoute
        self.repository = repository
        self.catalog = catalog
        self.now = now
        recentlyVerified = verifyCacheTTLMs.map { RecentlyVerified(ttlMs: $0) }
    }

    /// The SubmitReceipt handler: verification failures become gRPC status here
    /// (``ServiceErrors``), the one mapping for this RPC.
    func submit(_ request: EntitlementV1.SubmitReceiptRequest,
                deadline: ContinuousClock.Instant? = nil) async throws -> EntitlementV1.SubmitReceiptResponse {
        try await ServiceErrors.mapping { try await verifyAndStore(request, deadline: deadline) }
    }

    func verifyAndStore(
        _ request: EntitlementV1.SubmitReceiptRequest, deadline: ContinuousClock.Instant? = nil
    ) async throws -> EntitlementV1.SubmitReceiptResponse {
        guard !request.userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        let hasReceipt = !request.receiptData.isEmpty
        let hasSigned = !request.signedTransaction.isEmpty
        let hasTransactionID = !request.transactionID.isEmpty
        guard [hasReceipt, hasSigned, hasTransactionID].filter({ $0 }).count == 1 else {
            throw RPCError(.invalidArgument, "set exactly one of receipt_data, signed_transaction and transaction_id")
        }
        if hasTransactionID { return try await submitTransactionID(request, deadline: deadline) }
        guard hasReceipt else { return try await submitSigned(request) }
        guard let receipt = ReceiptData.normalized(request.receiptData) else {
            throw RPCError(
                .invalidArgument,
                "receipt_data is not standard base64 (the app's appStoreReceiptURL contents, base64-encoded)")
        }
        if case .serverAPI(let fallback) = receiptRoute,
           let answered = try await submitReceiptViaServerAPI(receipt, userID: request.userID, fallback: fallback,
                                                              deadline: deadline) {
            return answered
        }
        let receiptHash = SHA256.hexHash(receipt.utf8)
        var response = EntitlementV1.SubmitReceiptResponse()
        if let cached = recentlyVerified?.lookup(receiptHash, now: now()) {
            response.environment = APIMapping.environment(cached.environment)
            response.appleStatus = Int32(cached.appleStatus)
        } else {
            let verified = try await verifier.verify(receiptData: receipt, sha256: receiptHash)
            let write = FactsWrite(userID: request.userID, transactions: verified.transactions,
                                   renewalInfos: verified.renewalInfos, source: .receipt,
                                   sourceID: "receipt:" + receiptHash)
            let outcome = try await store(write)
            recentlyVerified?.record(receiptHash, environment: verified.environment,
                                     appleStatus: verified.appleStatus, now: now())
            response.environment = APIMapping.environment(verified.environment)
            response.appleStatus = Int32(verified.appleStatus)
            response.newTransactions = Int32(outcome.newTransactions)
        }
        response.entitlements = try entitlements(of: request.userID)
        return response
    }

    /// StoreKit 2: the app's `Transaction.jwsRepresentation`, verified locally (no call to
    /// Apple) with the same chain and signature rules as V2 notifications.
    func submitSigned(_ request: EntitlementV1.SubmitReceiptRequest) async throws -> EntitlementV1.SubmitReceiptResponse
    {
        let (transaction, price) = try signedTransactions.verifyPriced(request.signedTransaction)
        let write = FactsWrite(userID: request.userID, transactions: [transaction], source: .receipt,
                               sourceID: "jws:" + SHA256.hexHash(request.signedTransaction.utf8),
                               prices: price.map { [$0] } ?? [])
        let outcome = try await store(write)
        var response = EntitlementV1.SubmitReceiptResponse()
        response.environment = APIMapping.environment(transaction.environment)
        response.newTransactions = Int32(outcome.newTransactions)
        response.entitlements = try entitlements(of: request.userID)
        return response
    }

    /// Writes a claim and reports what it did to ownership: transfers and refusals to the
    /// observer, and token-less chains a device's proof bound to the user to Apple, so its
    /// later notifications carry the user's token. Errors stay ``StoreError``s.
    func storeClaim(_ write: FactsWrite) async throws -> WriteOutcome {
        let outcome: WriteOutcome
        do {
            outcome = try await repository.write(write)
        } catch let error as StoreError where error.code == .claimRefused || error.code == .ownershipConflict {
            observeOwnership?(.refused(error.refusal?.reason))
            throw error
        }
        if outcome.ownershipTransfers > 0 { observeOwnership?(.transferred(count: outcome.ownershipTransfers)) }
        if write.proof == .deviceProof, let setAccountToken, !outcome.tokenlessChainsTaken.isEmpty {
            let userID = write.userID
            for chain in outcome.tokenlessChainsTaken {
                Task { await setAccountToken(chain, userID) }
            }
        }
        return outcome
    }

    /// ``storeClaim(_:)`` with its errors as gRPC status.
    func store(_ write: FactsWrite) async throws -> WriteOutcome {
        try await withStoreErrors { try await storeClaim(write) }
    }

    func entitlements(of userID: String) throws -> [EntitlementV1.Entitlement] {
        let facts = try withStoreErrors { try repository.facts(userID: userID) }
        var entitlements = APIMapping.entitlements(
            EntitlementRules.entitlements(for: facts, at: .now(now()), catalog: catalog))
        APIMapping.addAppAccountTokens(&entitlements, from: facts)
        return entitlements
    }
}

/// Receipts verified within the TTL, so a chatty app does not cost an Apple round trip each
/// time. In memory and bounded: a restart only costs one extra verification per receipt.
final class RecentlyVerified: Sendable {
    struct Entry: Sendable {
        var verifiedAtMs: Int64
        var environment: Environment
        var appleStatus: Int
    }

    let ttlMs: Int64
    let capacity = 100_000
    private let entries = Mutex<[String: Entry]>([:])

    init(ttlMs: Int64) { self.ttlMs = ttlMs }

    func lookup(_ hash: String, now: Int64) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[hash], now - entry.verifiedAtMs < ttlMs else { return nil }
            return entry
        }
    }

    func record(_ hash: String, environment: Environment, appleStatus: Int, now: Int64) {
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { now - $0.value.verifiedAtMs < ttlMs }
                if entries.count >= capacity { entries.removeAll() }
            }
            entries[hash] = Entry(verifiedAtMs: now, environment: environment, appleStatus: appleStatus)
        }
    }
}
