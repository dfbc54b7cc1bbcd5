import AppStore
import EntitlementStorage
import Entitlements
import JWS

extension NotificationIngestor {
    /// V2: every JWS (the payload and the transaction and renewal info inside it) must verify
    /// against the trusted root at its own signedDate. Returns nil for TEST notifications.
    nonisolated func verifyV2(_ signedPayload: String) throws -> (write: NotificationWrite, type: String)? {
        let payloadBytes = try verified(signedPayload, at: try NotificationIngestor.verificationTime(of: signedPayload))
        let payload: NotificationV2Payload
        do {
            payload = try NotificationV2Payload.parse(payloadBytes)
        } catch {
            throw Rejection(status: 400, reason: "signed payload is not a V2 notification: \(error)")
        }
        let id = "v2:" + payload.notificationUUID
        if case .ignore = payload.action { return nil }
        // Without `data` (RENEWAL_EXTENSION summaries) nothing is stored, so there is no bundle
        // to hold against --bundle-id; refusing would only make Apple redeliver for days.
        if let expected = configuration.bundleID, let data = payload.data, data.bundleID != expected {
            throw Rejection(status: 403, reason: "bundleId '\(data.bundleID ?? "")' is not this service's bundle", notificationID: id)
        }
        var transactions: [Transaction] = []
        var renewals: [RenewalInfo] = []
        if let signed = payload.data?.signedTransactionInfo {
            let bytes = try verified(signed, at: NotificationIngestor.nestedTime(signed) ?? payload.signedDateMs, id: id)
            do { transactions.append(try JWSTransactionPayload.parse(bytes).transaction) } catch {
                throw Rejection(status: 400, reason: "signedTransactionInfo: \(error)", notificationID: id)
            }
        }
        if let signed = payload.data?.signedRenewalInfo {
            let bytes = try verified(signed, at: NotificationIngestor.nestedTime(signed) ?? payload.signedDateMs, id: id)
            do { renewals.append(try JWSRenewalInfoPayload.parse(bytes).renewalInfo) } catch {
                throw Rejection(status: 400, reason: "signedRenewalInfo: \(error)", notificationID: id)
            }
        }
        var events: [HistoryEvent] = []
        var reversed: [String] = []
        let subject = transactions.first
        func event(_ kind: HistoryEvent.Kind) -> HistoryEvent? {
            guard let subject else { return nil }
            return HistoryEvent(
                eventID: id, kind: kind, occurredAtMs: payload.signedDateMs, productID: subject.productID,
                transactionID: subject.transactionID, originalTransactionID: subject.originalTransactionID,
                expiresAtMs: subject.expiresDateMs ?? 0, environment: payload.data?.environment ?? subject.environment,
                source: .notificationV2, appleNotificationType: payload.notificationType)
        }
        switch payload.action {
        case .record(let kind):
            if NotificationIngestor.isNotificationEvent(kind), let e = event(kind) { events.append(e) }
        case .reverseRefund:
            if let subject { reversed.append(subject.transactionID) }
            if let e = event(.other) { events.append(e) }
        case .ignore:
            return nil
        }
        let write = NotificationWrite(source: .notificationV2, sourceID: id, signedDateMs: payload.signedDateMs,
                                      transactions: transactions, renewalInfos: renewals, events: events,
                                      reversedRefunds: reversed)
        return (write, payload.notificationType)
    }

    nonisolated func verified(_ compact: String, at time: Int64, id: String? = nil) throws -> [UInt8] {
        do {
            return try verifier.verify(compact, at: time).payload
        } catch {
            throw Rejection(status: 401, reason: "signature or certificate chain rejected: \(error)", notificationID: id)
        }
    }

    /// When to check certificate validity: the payload's signedDate, or for older V2 payloads
    /// without one, the nested transaction's signedDate (read before verification only to pick
    /// the instant; nothing from it is trusted until its own signature verifies).
    static func verificationTime(of signedPayload: String) throws -> Int64 {
        guard let bytes = try? JWSVerifier.unverifiedPayload(signedPayload) else {
            throw Rejection(status: 400, reason: "signedPayload is not a compact JWS")
        }
        if let signedDate = AppleDates.signedDate(in: bytes) { return signedDate }
        if let payload = try? NotificationV2Payload.parse(bytes), let nested = payload.data?.signedTransactionInfo,
           let time = nestedTime(nested) {
            return time
        }
        throw Rejection(status: 400, reason: "notification has no signedDate to verify its certificates at")
    }

    static func nestedTime(_ compact: String) -> Int64? {
        guard let bytes = try? JWSVerifier.unverifiedPayload(compact) else { return nil }
        return AppleDates.signedDate(in: bytes)
    }
}
