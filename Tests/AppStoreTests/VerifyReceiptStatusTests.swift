import AppStore
import XCTest

/// The status table, and the request body Apple receives.
final class VerifyReceiptStatusTests: XCTestCase {
    func testClassification() {
        typealias Disposition = VerifyReceiptStatus.Disposition
        let table: [(status: Int, isRetryable: Bool?, want: Disposition)] = [
            (0, nil, .ok),
            (21006, nil, .ok),
            (21000, nil, .invalidArgument),
            (21003, nil, .invalidArgument),
            (21002, nil, .retryThenInvalidArgument),
            (21002, true, .retryThenInvalidArgument),
            (21004, nil, .sharedSecretMismatch),
            (21007, nil, .retryAtSandbox),
            (21008, nil, .retryAtProduction),
            (21010, nil, .accountNotFound),
            (21005, nil, .retryable),
            (21009, nil, .retryable),
            (21100, true, .retryable),
            (21100, false, .unavailable(status: 21100)),
            (21100, nil, .unavailable(status: 21100)),
            (21199, true, .retryable),
            (21199, nil, .unavailable(status: 21199)),
            (21200, true, .unavailable(status: 21200)),
            (21001, nil, .unavailable(status: 21001)),
            (1, nil, .unavailable(status: 1)),
            (-1, nil, .unavailable(status: -1)),
        ]
        for row in table {
            XCTAssertEqual(
                VerifyReceiptStatus.classify(status: row.status, isRetryable: row.isRetryable), row.want,
                "status \(row.status), is-retryable \(String(describing: row.isRetryable))")
        }
    }

    /// `is-retryable` as Apple spells it (true, 1, "true") reaches the classification.
    func testIsRetryableSpellingsFromBodies() throws {
        let table: [(String, VerifyReceiptStatus.Disposition)] = [
            (#"{"status":21100,"is-retryable":true}"#, .retryable),
            (#"{"status":21100,"is-retryable":1}"#, .retryable),
            (#"{"status":21100,"is-retryable":"true"}"#, .retryable),
            (#"{"status":21100,"is-retryable":false}"#, .unavailable(status: 21100)),
            (#"{"status":21100,"is-retryable":0}"#, .unavailable(status: 21100)),
            (#"{"status":21100}"#, .unavailable(status: 21100)),
        ]
        for (body, want) in table {
            let response = try VerifyReceiptResponse.parse(body.bytes, observedAtMs: 0)
            XCTAssertEqual(
                VerifyReceiptStatus.classify(status: response.status, isRetryable: response.isRetryable),
                want, body)
        }
    }

    func testRequestBody() {
        let table: [(VerifyReceiptRequest, String)] = [
            (VerifyReceiptRequest(receiptData: "MIIT+/ab==", password: "s3cret"),
             #"{"receipt-data":"MIIT+/ab==","password":"s3cret","exclude-old-transactions":false}"#),
            (VerifyReceiptRequest(receiptData: "AA==", password: nil, excludeOldTransactions: true),
             #"{"receipt-data":"AA==","exclude-old-transactions":true}"#),
            (VerifyReceiptRequest(receiptData: "x", password: "a\"b\\c\n\u{1}é"),
             #"{"receipt-data":"x","password":"a\"b\\c\n\u0001é","exclude-old-transactions":false}"#),
        ]
        for (request, want) in table {
            XCTAssertEqual(String(decoding: request.jsonBody(), as: UTF8.self), want)
        }
    }
}
