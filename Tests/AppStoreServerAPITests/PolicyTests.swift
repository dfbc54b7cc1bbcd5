@testable import AppStoreServerAPI
import Foundation
import JWS
import Testing

/// The pure rules: Apple's answers as verdicts, backoff, Retry-After, the token bucket, the JWT.
struct PolicyTests {
    static let verdicts: [(Int, Int?, ServerAPIVerdict)] = [
        (200, nil, .success), (202, nil, .success), (401, nil, .unauthorized), (403, nil, .unauthorized),
        (403, 4030004, .refused), (403, 4030005, .refused),
        (404, 4040010, .tryOtherEnvironment), (404, 4040005, .tryOtherEnvironment), (404, 4040001, .notFound),
        (404, nil, .notFound), (404, 4040002, .retry), (404, 4040004, .retry), (404, 4040006, .retry),
        (500, 5000001, .retry), (500, nil, .retry), (503, nil, .retry), (502, nil, .retry),
        (429, 4290000, .rateLimited), (400, 4000006, .invalidRequest), (400, nil, .invalidRequest),
        (302, nil, .retry),
    ]

    @Test(arguments: verdicts)
    func eachAnswerHasOneVerdict(status: Int, errorCode: Int?, verdict: ServerAPIVerdict) {
        #expect(ServerAPIVerdict.classify(status: status, errorCode: errorCode) == verdict)
    }

    @Test func backoffDoublesUpToTheCapScaledByJitter() {
        let delays = (1...7).map {
            backoffDelay(failures: $0, initial: .milliseconds(100), maximum: .seconds(2), unit: 1)
        }
        #expect(delays == [100, 200, 400, 800, 1600, 2000, 2000].map { .milliseconds($0) })
        #expect(backoffDelay(failures: 3, initial: .milliseconds(100), maximum: .seconds(2), unit: 0) == .zero)
        #expect(backoffDelay(failures: 3, initial: .milliseconds(100), maximum: .seconds(2), unit: 0.25)
                == .milliseconds(100))
    }

    @Test func retryAfterReadsEpochMillisecondsAndDeltaSeconds() {
        let now: Int64 = 1_800_000_000_000
        #expect(retryAfterDelay("\(now + 2500)", nowMs: now) == .milliseconds(2500))
        #expect(retryAfterDelay("\(now - 10)", nowMs: now) == .zero)
        #expect(retryAfterDelay("3", nowMs: now) == .seconds(3))
        #expect(retryAfterDelay("soon", nowMs: now) == nil)
        #expect(retryAfterDelay(nil, nowMs: now) == nil)
    }

    @Test func tokenBucketAllowsABurstThenSpacesRequestsAtTheRate() {
        var bucket = TokenBucket(rate: 10, capacity: 2, nowNs: 0)
        #expect(bucket.reserve(atNs: 0) == 0)
        #expect(bucket.reserve(atNs: 0) == 0)
        #expect(bucket.reserve(atNs: 0) == 100_000_000)
        #expect(bucket.reserve(atNs: 0) == 200_000_000)
        // A second later the debt is paid and the bucket refilled to its capacity, no further.
        #expect(bucket.reserve(atNs: 1_200_000_000) == 0)
        #expect(bucket.reserve(atNs: 1_200_000_000) == 0)
        #expect(bucket.reserve(atNs: 1_200_000_000) == 100_000_000)
        bucket.cancelReservation()
        #expect(bucket.reserve(atNs: 1_200_000_000) == 100_000_000)
    }

    @Test func tokenCarriesApplesHeaderAndClaimsAndIsReusedUntilNearExpiry() async throws {
        let credentials = ServerAPICredentials(keyID: "ABC123", issuerID: "57246542-96fe-1a63-e053-0824d011072a",
                                               bundleID: "com.example.app", key: try ES256SigningKey.generate())
        let tokens = ServerAPIAccess(credentials: credentials, requestsPerSecond: 10, lifetimeSeconds: 1200,
                                     renewBeforeSeconds: 300, nowNs: { 0 })
        let first = try await tokens.token(nowMs: 1_000_000_000_000)
        let parts = first.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: Self.base64URL(parts[0])) as? [String: String]
        #expect(header == ["alg": "ES256", "kid": "ABC123", "typ": "JWT"])
        let claims = try #require(try JSONSerialization.jsonObject(with: Self.base64URL(parts[1])) as? [String: Any])
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == "com.example.app")
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_000_000_000)
        #expect((claims["exp"] as? NSNumber)?.int64Value == 1_000_001_200)
        #expect(Self.base64URL(parts[2]).count == 64)
        #expect(try await tokens.token(nowMs: 1_000_000_899_000) == first)
        #expect(try await tokens.token(nowMs: 1_000_000_901_000) != first)
    }

    @Test func lifetimeNeverExceedsApplesHour() {
        let claims = AuthorizationClaims(keyID: "k", issuerID: "i", bundleID: "b", issuedAtSeconds: 0,
                                         lifetimeSeconds: 7200)
        #expect(claims.expiresAtSeconds == 3600)
    }

    @Test func keysThatAreNotP256AreRefused() throws {
        let pem = try ES256SigningKey.generate().pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        _ = try ES256SigningKey(pkcs8PEM: Array(pem.utf8))
        #expect(throws: JWSError.self) { try ES256SigningKey(pkcs8PEM: Array("not a key".utf8)) }
    }

    static func base64URL(_ text: String) -> Data {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s) ?? Data()
    }
}
