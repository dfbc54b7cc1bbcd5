import AppStore
import Entitlements
import Foundation
import JWS

/// The Server API's test notification: Apple's way for a developer to prove the webhook path.
extension AppStoreSimulator {
    /// `POST /inApps/v1/notifications/test`: a V2 TEST (data: bundle and environment) goes to
    /// the webhook and into the notification history; the answer is its token.
    func testNotificationAnswer(_ environment: Environment) -> APIAnswer {
        let uuid = UUID().uuidString.lowercased()
        let data = NotificationV2Payload.Data(bundleID: composer.bundleID, environment: environment)
        let payload = NotificationV2Payload(notificationUUID: uuid, notificationType: "TEST", signedDateMs: wallClock(),
                                            data: data)
        guard let signed = try? composer.signer.sign(payload.jsonBody()) else { return .failure(.generalInternal) }
        let token = UUID().uuidString.lowercased() + "_" + String(wallClock())
        testNotifications.withLock { $0[token] = (uuid, signed) }
        history.withLock {
            $0.append(.init(notificationUUID: uuid, environment: environment, sentAtMs: wallClock(),
                            signedPayload: signed))
        }
        delivery?.submit([.init(label: "TEST", notificationUUID: uuid,
                                body: Array("{\"signedPayload\":\"\(signed)\"}".utf8))])
        return .success(["testNotificationToken": token])
    }

    /// `GET /inApps/v1/notifications/test/{token}`: the TEST's payload and delivery attempts;
    /// 404 4040008 for a token this simulator never issued.
    func testNotificationStatusAnswer(_ token: String) -> APIAnswer {
        guard let sent = testNotifications.withLock({ $0[token] }) else { return .failure(.testNotificationNotFound) }
        let attempts = delivery?.attempts(notificationUUID: sent.uuid) ?? []
        return .success([
            "signedPayload": sent.signedPayload,
            "sendAttempts": attempts.map { ["attemptDate": $0.attemptDateMs, "sendAttemptResult": $0.result] },
        ])
    }
}
