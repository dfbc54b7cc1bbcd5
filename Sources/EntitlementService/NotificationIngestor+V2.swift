import AppStore
import EntitlementPorts
import Entitlements
import JWS

extension NotificationIngestor {
    /// V2: every JWS (the payload and the transaction and renewal info inside it) must verify
    /// against the trusted root at its own signedDate. Each is decoded once: the verifier hands
    /// back the decoded value only after its signature verifies. Returns nil for TEST.
    nonisolated func verifyV2(_ signedPayload: String)
        throws(NotificationRejection) -> (write: NotificationWrite, type: String)? {
        var signedDate: Int64 = 0
        let payload: NotificationV2Payload = try verified(signedPayload, as: "signedPayload") { bytes in
            let payload = try NotificationV2Payload.parse(bytes)
            signedDate = try NotificationIngestor.verificationTime(of: payload)
            return (payload, signedDate)
        }
        let id = "v2:" + payload.notificationUUID
        if case .ignore = payload.action {
            testNotifications?.record(notificationUUID: payload.notificationUUID,
                                      environment: payload.data?.environment ?? .production, atMs: now())
            return nil
        }
        // Without `data` (RENEWAL_EXTENSION summaries) nothing is stored, so there is no bundle
        // to hold against --bundle-id; refusing would only make Apple redeliver for days.
        if let expected = configuration.bundleID, let data = payload.data, data.bundleID != expected {
            throw NotificationRejection(.otherBundle, "bundleId '\(data.bundleID ?? "")' is not this service's bundle",
                                        notificationID: id)
        }
        var transactions: [Transaction] = []
        var prices: [TransactionPrice] = []
        var renewals: [RenewalInfo] = []
        if let signed = payload.data?.signedTransactionInfo {
            let decoded: JWSTransactionPayload = try verified(signed, as: "signedTransactionInfo", id: id) { bytes in
                let transaction = try JWSTransactionPayload.parse(bytes)
                return (transaction, transaction.signedDateMs)
            }
            transactions.append(decoded.transaction)
            prices += decoded.transactionPrice.map { [$0] } ?? []
        }
        if let signed = payload.data?.signedRenewalInfo {
            let decoded: JWSRenewalInfoPayload = try verified(signed, as: "signedRenewalInfo", id: id) { bytes in
                let renewal = try JWSRenewalInfoPayload.parse(bytes)
                return (renewal, renewal.signedDateMs)
            }
            renewals.append(decoded.renewalInfo)
        }
        var events: [HistoryEvent] = []
        var reversed: [String] = []
        let subject = transactions.first
        let appleType = payload.appleNotificationType
        func event(_ kind: HistoryEvent.Kind) -> HistoryEvent? {
            guard let subject else { return nil }
            return HistoryEvent(
                eventID: id, kind: kind, occurredAtMs: signedDate, productID: subject.productID,
                transactionID: subject.transactionID, originalTransactionID: subject.originalTransactionID,
                expiresAtMs: subject.expiresDateMs ?? 0, environment: payload.data?.environment ?? subject.environment,
                source: .notificationV2, appleNotificationType: appleType,
                reason: kind == .consumptionRequest ? payload.data?.consumptionRequestReason ?? "" : "")
        }
        let report = payload.historyReport(subject: subject)
        switch payload.action {
        case .record(let kind):
            if NotificationIngestor.isNotificationEvent(kind, report), let e = event(kind) { events.append(e) }
        case .reverseRefund:
            if let subject { reversed.append(subject.transactionID) }
            if let e = event(.other) { events.append(e) }
        case .ignore:
            return nil
        }
        let write = NotificationWrite(source: .notificationV2, sourceID: id, signedDateMs: signedDate,
                                      transactions: transactions, renewalInfos: renewals, events: events,
                                      reversedRefunds: reversed, report: report, prices: prices)
        return (write, payload.notificationType)
    }

    /// Verifies one JWS and returns what `read` decoded from it: unauthenticated when the token
    /// or its chain is rejected, malformed when it is not a JWS or the payload is not what `name`
    /// must be.
    nonisolated func verified<Value>(_ compact: String, as name: String, id: String? = nil,
                         read: ([UInt8]) throws -> (value: Value, atUnixMs: Int64))
        throws(NotificationRejection) -> Value {
        do {
            return try verifier.verify(compact, reading: read)
        } catch let error as JWSError {
            // Not even a compact JWS: malformed. Otherwise the token was refused.
            let wellFormed = (try? JWSVerifier.unverifiedPayload(compact)) != nil
            throw NotificationRejection(wellFormed ? .unauthenticated : .malformed,
                                        "\(name): signature or certificate chain rejected: \(error)",
                                        notificationID: id)
        } catch let rejection as NotificationRejection {
            throw rejection
        } catch {
            throw NotificationRejection(.malformed, "\(name) is not what Apple sends: \(error)", notificationID: id)
        }
    }

    /// When to check certificate validity: the payload's signedDate, or for older V2 payloads
    /// without one, the nested transaction's (read unverified only to pick the instant; that
    /// transaction is verified at it right after).
    static func verificationTime(of payload: NotificationV2Payload) throws(NotificationRejection) -> Int64 {
        if payload.signedDateMs > 0 { return payload.signedDateMs }
        if let nested = payload.data?.signedTransactionInfo,
           let bytes = try? JWSVerifier.unverifiedPayload(nested),
           let transaction = try? JWSTransactionPayload.parse(bytes) {
            return transaction.signedDateMs
        }
        throw NotificationRejection(.malformed, "notification has no signedDate to verify its certificates at")
    }
}
