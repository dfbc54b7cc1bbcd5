@testable import EntitlementService
import HTTPClient
import RPCCore
import Testing

/// What a caller reads when Apple cannot be used, and what stays in the server's log: a short
/// sentence in the UNAVAILABLE message, the HTTP stack's whole text only in the error's cause.
struct AppleFailureMessageTests {
    private let receipt = "cmVjZWlwdA=="

    /// The same words URLSession's codes gave before the libcurl client (issue 14).
    @Test(arguments: [
        (HTTPClientError.Kind.connectionRefused, "connection refused"),
        (.timedOut, "timed out"),
        (.hostNotResolved, "host name not resolved"),
        (.connectionLost, "connection lost"),
        (.tlsFailed, "TLS handshake failed"),
        (.malformedResponse, "malformed HTTP response"),
        (.responseTooLarge, "response too large"),
        (.other(code: 1), "network error 1"),
    ])
    func clientFailuresBecomeAFewWords(kind: HTTPClientError.Kind, reason: String) {
        let error = AppleTransportError(HTTPClientError(
            kind: kind, detail: "curl error 7: Failed to connect to buy.itunes.apple.test port 443"))
        #expect(error.reason == reason)
        #expect(error.detail.contains("curl error 7: Failed to connect"), "the full text is kept for the log")
        #expect(!error.reason.contains("curl"))
    }

    /// What the caller reads: the verifier's failure as the RPC edge answers it.
    private func unavailable(_ answers: [ScriptedApple.Answer]) async -> RPCError? {
        do {
            _ = try await Harness.verifier(ScriptedApple(answers)).verify(receiptData: receipt)
        } catch let error as ReceiptVerificationError {
            return error.rpcError
        } catch {
            Issue.record("expected a ReceiptVerificationError, got \(error)")
        }
        return nil
    }

    @Test func transportFailuresSayWhatFailedAndKeepTheDetailInTheCause() async throws {
        let error = try #require(await unavailable(Array(repeating: .transportError, count: 4)))
        #expect(error.code == .unavailable)
        #expect(
            error.message
                == "Apple's verifyReceipt endpoint could not be reached after 4 attempts (network error); retry later")
        #expect(!error.message.contains("scripted Apple"), "the HTTP stack's own words stay out of the message")
        #expect("\(try #require(error.cause))".contains("connection reset by scripted Apple"))
    }

    @Test func httpFailuresNameTheLastStatus() async throws {
        let error = try #require(await unavailable([.http(500), .http(502), .http(503), .http(503)]))
        #expect(error.code == .unavailable)
        #expect(error.message == "Apple's verifyReceipt endpoint failed 4 attempts (last: HTTP 503); retry later")
    }
}
