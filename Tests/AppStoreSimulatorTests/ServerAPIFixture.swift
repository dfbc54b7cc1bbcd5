import AppStoreSimulator
import Foundation
import HTTPCore
import JWS
import XCTest

/// A simulator serving the Server API at a fixed wall clock, and a client's JWTs for it.
struct ServerAPIFixture {
    typealias F = SimulationFixture
    static let keyID = "SIMKEY0001"
    static let issuerID = "5a1e5a1e-0000-4000-8000-000000000001"
    static let bundleID = "com.example.app"

    let key: ES256SigningKey
    let simulator: AppStoreSimulator
    let service: AppStoreSimulatorService

    init(pageSize: Int = 2, delivery: WebhookDelivery? = nil) throws {
        key = try ES256SigningKey.generate()
        simulator = try AppStoreSimulator.withOwnPKI(
            configuration: .init(bundleID: Self.bundleID, sharedSecret: F.secret), notifications: .v2,
            delivery: delivery,
            apiKey: ServerAPIKey(keyID: Self.keyID, issuerID: Self.issuerID, bundleID: Self.bundleID, key: key),
            apiPageSize: pageSize, wallClock: { F.start })
        service = simulator.service()
    }

    /// A token as a correct client makes it, with `header` and `claims` overriding fields
    /// (NSNull removes one), signed by `signer` (default: the simulator's own key).
    func token(
        header: [String: Any] = [:], claims: [String: Any] = [:], signer: ES256SigningKey? = nil
    ) throws -> String {
        let now = F.start / 1000
        var fullHeader: [String: Any] = ["alg": "ES256", "kid": Self.keyID, "typ": "JWT"]
        var fullClaims: [String: Any] = [
            "iss": Self.issuerID, "iat": now, "exp": now + 1200, "aud": "appstoreconnect-v1", "bid": Self.bundleID,
        ]
        for (name, value) in header { fullHeader[name] = value is NSNull ? nil : value }
        for (name, value) in claims { fullClaims[name] = value is NSNull ? nil : value }
        return try (signer ?? key).signCompact(
            header: Array(try JSONSerialization.data(withJSONObject: fullHeader)),
            payload: Array(try JSONSerialization.data(withJSONObject: fullClaims)))
    }

    /// Sends one request with a valid token unless `authorization` says otherwise.
    func call(
        _ method: String, _ path: String, body: [String: Any]? = nil, authorization: String? = nil
    ) throws -> RecordingWriter {
        let headers: HTTPHeaders = ["authorization": try authorization ?? "Bearer " + token()]
        let data = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        let writer = RecordingWriter()
        service.handle(HTTPRequest(version: .http1_1, method: method, path: path, headers: headers, body: data),
                       writer: writer)
        return writer
    }

    /// Runs a control action through the control API and returns its JSON answer.
    @discardableResult
    func control(_ name: String, _ body: [String: Any]) throws -> [String: Any] {
        let writer = RecordingWriter()
        service.handle(HTTPRequestFactory.post("/control/\(name)", body), writer: writer)
        XCTAssertEqual(writer.status, 200, "control \(name): \(writer.json ?? [:])")
        return try XCTUnwrap(writer.json)
    }

    func purchase(user: String, environment: String = "production") throws -> String {
        try XCTUnwrap(
            try control("purchase", ["product_id": "pro.monthly", "user_token": user, "environment": environment,
                                     "period": "30d"])["transaction_id"] as? String)
    }

    /// The verified payload of a JWS the simulator signed.
    func payload(_ jws: String) throws -> [String: Any] {
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: simulator.rootCertificatePEM))
        let verified = try verifier.verify(jws, at: F.start + 400 * F.day)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(verified.payload)) as? [String: Any])
    }
}
