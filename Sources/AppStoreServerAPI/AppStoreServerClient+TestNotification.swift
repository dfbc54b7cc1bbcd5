import Entitlements
import Foundation

extension AppStoreServerClient {
    /// `POST /inApps/v1/notifications/test`: Apple sends a TEST notification to the app's
    /// server notification URL for `environment`; answers the token to ask about its delivery.
    public func requestTestNotification(environment: Environment,
                                        deadline: ContinuousClock.Instant? = nil) async throws -> String {
        return try await request(.testNotification, environment: environment, method: "POST",
                                 path: "inApps/v1/notifications/test", body: Array("{}".utf8),
                                 deadline: deadline ?? defaultDeadline()) { bytes in
            guard let token = try ServerAPIBody.object(bytes)["testNotificationToken"] as? String, !token.isEmpty else {
                throw ServerAPIBody.Unreadable(description: "test notification answer without testNotificationToken")
            }
            return token
        }.value(in: environment, orNotFound: "sent no test")
    }

    /// `GET /inApps/v1/notifications/test/{testNotificationToken}`: the TEST's signed payload
    /// and Apple's attempts to deliver it so far.
    public func testNotificationStatus(
        token: String, environment: Environment, deadline: ContinuousClock.Instant? = nil
    ) async throws -> TestNotificationStatus {
        let path = "inApps/v1/notifications/test/" + Self.pathSegment(token)
        return try await request(.testNotification, environment: environment, method: "GET", path: path,
                                 deadline: deadline ?? defaultDeadline(), read: ServerAPIBody.testStatus)
            .value(in: environment, orNotFound: "knows no test notification with that token")
    }
}

/// What Apple says about one TEST notification.
public struct TestNotificationStatus: Sendable, Equatable {
    public struct SendAttempt: Sendable, Equatable {
        public var attemptDateMs: Int64
        /// Apple's `sendAttemptResult`: SUCCESS, TIMED_OUT, SSL_ISSUE, CIRCULAR_REDIRECT,
        /// NO_RESPONSE, SOCKET_ISSUE, UNSUPPORTED_CHARSET, INVALID_RESPONSE, PREMATURE_CLOSE,
        /// UNSUCCESSFUL_HTTP_RESPONSE_CODE, OTHER.
        public var result: String
    }

    /// The TEST's signedPayload (unverified), when Apple includes it.
    public var signedPayload: String?
    public var sendAttempts: [SendAttempt]
}

extension ServerAPIBody {
    static func testStatus(_ bytes: [UInt8]) throws -> TestNotificationStatus {
        let object = try object(bytes)
        let attempts = (object["sendAttempts"] as? [[String: Any]] ?? []).map { attempt in
            TestNotificationStatus.SendAttempt(attemptDateMs: Int64(integer(attempt["attemptDate"]) ?? 0),
                                               result: attempt["sendAttemptResult"] as? String ?? "")
        }
        return TestNotificationStatus(signedPayload: object["signedPayload"] as? String, sendAttempts: attempts)
    }
}
