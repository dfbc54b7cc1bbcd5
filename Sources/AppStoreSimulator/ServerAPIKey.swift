import Foundation
import JWS

/// The In-App Purchase key as Apple holds it: key id, issuer id, the app's bundle id and the
/// public half of the pair, and the checks Apple makes on every Server API request's JWT.
///
/// The simulator is stricter than a lenient fake on purpose: a client that works against it
/// sends tokens Apple accepts (ES256 by the right key, `kid`, `iss`, `aud`, `bid`, a lifetime of
/// at most 60 minutes), and one that does not sees the 401 it would get from Apple.
public struct ServerAPIKey: Sendable {
    public let keyID: String
    public let issuerID: String
    public let bundleID: String
    public let key: ES256SigningKey

    /// Apple's `aud` for every App Store Connect and Server API token.
    public static let audience = "appstoreconnect-v1"
    /// Apple rejects a token whose `exp` is more than 60 minutes after its `iat`.
    public static let maximumLifetimeSeconds: Int64 = 3600
    /// How far in the future an `iat` may be: clocks of two honest machines differ a little.
    public static let clockSkewSeconds: Int64 = 60

    public init(keyID: String, issuerID: String, bundleID: String, key: ES256SigningKey) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
        self.key = key
    }

    /// Nil when the `Authorization` header holds a token Apple would accept at `nowMs`, else
    /// why not (the simulator's 401 carries it in a header, for the operator; Apple says less).
    public func rejection(authorization: String?, nowMs: Int64) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer "), authorization.count > 7 else {
            return "no 'Authorization: Bearer <JWT>' header"
        }
        let token = String(authorization.dropFirst(7))
        let header: [String: Any]
        let claims: [String: Any]
        do {
            let (headerBytes, payloadBytes) = try key.verifyCompact(token)
            guard let decodedHeader = Self.object(headerBytes), let decodedClaims = Self.object(payloadBytes) else {
                return "the JWT header and payload must be JSON objects"
            }
            header = decodedHeader
            claims = decodedClaims
        } catch {
            return error.code == .badSignature
                ? "the JWT signature does not verify with key \(keyID)" : "malformed JWT: \(error.message)"
        }
        if let problem = headerProblem(header) { return problem }
        return claimsProblem(claims, nowSeconds: nowMs / 1000)
    }

    private func headerProblem(_ header: [String: Any]) -> String? {
        guard header["alg"] as? String == "ES256" else { return "the JWT alg must be ES256" }
        guard let kid = header["kid"] as? String else { return "the JWT header has no kid" }
        guard kid == keyID else { return "unknown kid '\(kid)'" }
        if let typ = header["typ"], typ as? String != "JWT" { return "the JWT typ must be JWT" }
        return nil
    }

    private func claimsProblem(_ claims: [String: Any], nowSeconds: Int64) -> String? {
        guard claims["iss"] as? String == issuerID else { return "iss is not the issuer id \(issuerID)" }
        guard claims["aud"] as? String == Self.audience else { return "aud must be \(Self.audience)" }
        guard claims["bid"] as? String == bundleID else { return "bid is not the bundle id \(bundleID)" }
        guard let iat = Self.seconds(claims["iat"]), let exp = Self.seconds(claims["exp"]) else {
            return "iat and exp must be numbers (seconds since 1970)"
        }
        guard exp > nowSeconds else { return "the token expired at \(exp) (now \(nowSeconds))" }
        guard iat <= nowSeconds + Self.clockSkewSeconds else { return "iat \(iat) is in the future" }
        guard exp - iat <= Self.maximumLifetimeSeconds else {
            return "the token lives \(exp - iat) s; Apple allows at most \(Self.maximumLifetimeSeconds)"
        }
        return nil
    }

    private static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    private static func seconds(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, type(of: number) != type(of: NSNumber(value: true)) else { return nil }
        return number.int64Value
    }
}
