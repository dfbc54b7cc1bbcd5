import AppStoreSimulator
import Foundation
import JWS
import XCTest

/// The simulator accepts exactly the tokens Apple accepts; everything else is a 401.
final class JWTValidationTests: XCTestCase {
    private typealias F = SimulationFixture

    func testOnlyAnAppleShapedTokenIsAccepted() throws {
        let api = try ServerAPIFixture()
        let id = try api.purchase(user: "alice")
        let now = F.start / 1000
        let stranger = try ES256SigningKey.generate()
        let cases: [(String, String?)] = [
            ("valid", try "Bearer " + api.token()),
            ("valid without typ", try "Bearer " + api.token(header: ["typ": NSNull()])),
            ("valid at the 60 minute limit", try "Bearer " + api.token(claims: ["exp": now + 3600])),
            ("missing header", nil),
            ("not bearer", try "Basic " + api.token()),
            ("another key", try "Bearer " + api.token(signer: stranger)),
            ("unknown kid", try "Bearer " + api.token(header: ["kid": "OTHERKEY01"])),
            ("no kid", try "Bearer " + api.token(header: ["kid": NSNull()])),
            ("alg HS256", try "Bearer " + api.token(header: ["alg": "HS256"])),
            ("typ other", try "Bearer " + api.token(header: ["typ": "JOSE"])),
            ("wrong iss", try "Bearer " + api.token(claims: ["iss": "someone-else"])),
            ("wrong aud", try "Bearer " + api.token(claims: ["aud": "appstoreconnect-v2"])),
            ("wrong bid", try "Bearer " + api.token(claims: ["bid": "com.example.other"])),
            ("no bid", try "Bearer " + api.token(claims: ["bid": NSNull()])),
            ("expired", try "Bearer " + api.token(claims: ["iat": now - 1300, "exp": now - 100])),
            ("lives 61 minutes", try "Bearer " + api.token(claims: ["exp": now + 3660])),
            ("iat in the future", try "Bearer " + api.token(claims: ["iat": now + 600, "exp": now + 1200])),
            ("exp as text", try "Bearer " + api.token(claims: ["exp": "\(now + 600)"])),
            ("garbage", "Bearer not-a-jwt"),
        ]
        for (name, authorization) in cases {
            let headers = authorization ?? ""
            let writer = try api.call("GET", "/inApps/v1/transactions/\(id)", authorization: headers)
            let expected = name.hasPrefix("valid") ? 200 : 401
            XCTAssertEqual(writer.status, expected, "\(name): \(writer.header("x-appstore-sim-reason") ?? "")")
            if expected == 401 { XCTAssertNotNil(writer.header("x-appstore-sim-reason"), name) }
        }
    }

    func testTheWrittenKeyLoadsBackAndSignsTokensTheSimulatorAccepts() throws {
        let api = try ServerAPIFixture()
        let pem = try api.key.pkcs8PEM()
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"), "PKCS#8, as App Store Connect's .p8")
        let reloaded = try ES256SigningKey(pkcs8PEM: Array(pem.utf8))
        let id = try api.purchase(user: "alice")
        let writer = try api.call(
            "GET", "/inApps/v1/transactions/\(id)", authorization: "Bearer " + api.token(signer: reloaded))
        XCTAssertEqual(writer.status, 200)
    }

    func testWithoutAKeyTheServerAPIAnswers401() throws {
        let simulator = try AppStoreSimulator.withOwnPKI(
            configuration: .init(bundleID: "com.example.app", sharedSecret: nil), notifications: .v2,
            delivery: nil, wallClock: { F.start })
        let writer = RecordingWriter()
        simulator.service().handle(HTTPRequestFactory.get("/inApps/v1/transactions/1"), writer: writer)
        XCTAssertEqual(writer.status, 401)
    }
}
