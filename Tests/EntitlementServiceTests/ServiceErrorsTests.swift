@testable import EntitlementService
import JWS
import RPCCore
import Testing

/// The RPC edge: every verification failure has one gRPC status and one message a caller can
/// act on; what lies behind it stays in the cause, for the server's log.
struct ServiceErrorsTests {
    static let receiptTable: [(ReceiptVerificationError, RPCCode, String)] = [
        (.appleUnreachable(.httpStatus(503), attempts: 4), .unavailable,
         "Apple's verifyReceipt endpoint failed 4 attempts (last: HTTP 503); retry later"),
        (.appleBusy(status: 21005, attempts: 4), .unavailable,
         "Apple's verifyReceipt is temporarily unavailable (status 21005) after 4 attempts; retry later"),
        (.appleUnavailable(status: 21199), .unavailable,
         "Apple's verifyReceipt answered status 21199, which is not retryable now; retry later"),
        (.environmentLoop(status: 21008), .unavailable,
         "Apple sent the receipt back and forth between production and sandbox (status 21008)"),
        (.unreadableReceipt, .invalidArgument,
         "Apple could not read the receipt data (status 21002): send the app's base64 receipt unchanged"),
        (.invalidReceipt(status: 21003), .invalidArgument,
         "Apple rejected the receipt (status 21003): it is not a valid App Store receipt"),
        (.sharedSecretMismatch, .failedPrecondition,
         "Apple rejected the shared secret (status 21004): check --apple-shared-secret against App Store Connect"),
        (.accountNotFound, .notFound,
         "Apple no longer knows the account of this receipt (status 21010): treat it as never purchased"),
        (.otherBundle(found: "com.other", expected: "com.example"), .invalidArgument,
         "receipt is for bundle 'com.other', not this service's 'com.example'"),
        (.otherBundle(found: nil, expected: "com.example"), .invalidArgument,
         "receipt is for bundle '(none)', not this service's 'com.example'"),
    ]

    @Test(arguments: receiptTable)
    func eachReceiptFailureHasOneStatusAndMessage(_ error: ReceiptVerificationError, code: RPCCode, message: String) {
        let mapped = ServiceErrors.rpcError(for: error) as? RPCError
        #expect(mapped?.code == code)
        #expect(mapped?.message == message)
    }

    @Test func appleTransportDetailStaysInTheCause() throws {
        let transport = AppleTransportError(
            reason: "connection refused", detail: "NSURLErrorDomain -1004 https://apple")
        let mapped = try #require(
            ServiceErrors.rpcError(
                for: ReceiptVerificationError.appleUnreachable(
                    .transport(transport), attempts: 4)) as? RPCError)
        #expect(
            mapped.message
                == "Apple's verifyReceipt endpoint could not be reached after 4 attempts (connection refused); "
                + "retry later")
        #expect(!mapped.message.contains("NSURLErrorDomain"))
        #expect("\(try #require(mapped.cause))".contains("NSURLErrorDomain"))
    }

    @Test(arguments: [
        (
            SignedTransactionError.rejected(JWSError(.badSignature, "bad signature")),
            "signed_transaction failed verification: bad signature"
        ),
        (
            .notATransaction(reason: "missing_field: transactionId"),
            "signed_transaction is not a transaction: missing_field: transactionId"
        ),
        (
            .otherBundle(found: "com.other", expected: "com.example"),
            "signed_transaction is for bundle 'com.other', not 'com.example'"
        ),
    ])
    func signedTransactionFailuresAreInvalidArguments(_ error: SignedTransactionError, message: String) {
        let mapped = ServiceErrors.rpcError(for: error) as? RPCError
        #expect(mapped?.code == .invalidArgument)
        #expect(mapped?.message == message)
    }

    /// The same failures in a Server API answer: the operator's log line keeps the JWS code and
    /// names Apple's field, since trust or bundle configuration is fixed from it.
    @Test func signedTransactionFailuresInServerAPIAnswersNameTheJWSCode() {
        let cases: [(SignedTransactionError, String)] = [
            (.rejected(JWSError(.badSignature, "bad signature")), "JWS rejected (badSignature): bad signature"),
            (.notATransaction(reason: "missing_field: transactionId"), "missing_field: transactionId"),
            (.otherBundle(found: nil, expected: "com.example"), "bundleId '' is not 'com.example'"),
        ]
        for (error, reason) in cases {
            let rejected = ServerAPIDataRejected(what: "signedTransactionInfo", reason: "\(error)")
            #expect(rejected.description
                    == "signedTransactionInfo from the App Store Server API failed verification: \(reason)")
        }
    }

    @Test func otherErrorsPassThroughUnchanged() {
        let rpc = RPCError(.notFound, "no such user")
        #expect((ServiceErrors.rpcError(for: rpc) as? RPCError)?.message == "no such user")
        #expect(ServiceErrors.rpcError(for: CancellationError()) is CancellationError)
    }
}

extension ReceiptVerificationError: CustomTestStringConvertible {
    public var testDescription: String { "\(self)" }
}

extension SignedTransactionError: CustomTestStringConvertible {
    public var testDescription: String { "\(self)" }
}
