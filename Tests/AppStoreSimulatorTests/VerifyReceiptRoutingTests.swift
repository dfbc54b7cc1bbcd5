import AppStoreSimulator
import Entitlements
import XCTest

/// verifyReceipt's statuses: a receipt lives in one environment, the password must match.
final class VerifyReceiptRoutingTests: XCTestCase {
    func testProductionReceipt() throws {
        var fixture = SimulationFixture()
        let (_, receipt) = try fixture.subscribe(environment: .production)
        XCTAssertEqual(try fixture.status(receipt, endpoint: .production), 0)
        XCTAssertEqual(try fixture.status(receipt, endpoint: .sandbox), 21008)
        XCTAssertEqual(try fixture.verify(receipt).environment, .production)
    }

    func testSandboxReceipt() throws {
        var fixture = SimulationFixture()
        let (_, receipt) = try fixture.subscribe(environment: .sandbox)
        XCTAssertEqual(try fixture.status(receipt, endpoint: .production), 21007)
        let response = try fixture.verify(receipt, endpoint: .sandbox)
        XCTAssertEqual(response.status, 0)
        XCTAssertEqual(response.environment, .sandbox)
        XCTAssertEqual(response.transactions.first?.environment, .sandbox)
    }

    func testWrongPasswordIs21004AndNoPasswordOmitsLatestInfo() throws {
        var fixture = SimulationFixture()
        let (_, receipt) = try fixture.subscribe()
        XCTAssertEqual(try fixture.status(receipt, password: "wrong"), 21004)
        let json = try fixture.verifyJSON(receipt, password: nil)
        XCTAssertEqual(json["status"] as? Int, 0)
        XCTAssertNil(json["latest_receipt_info"])
        XCTAssertNil(json["pending_renewal_info"])
    }

    func testUnknownOrMalformedReceiptIs21002() throws {
        let fixture = SimulationFixture()
        XCTAssertEqual(try fixture.status("bm90IGEgcmVjZWlwdA=="), 21002)
        let body = fixture.simulation.verifyReceipt(body: Array("not json".utf8), endpoint: .production)
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "{\"status\":21002}")
    }
}
