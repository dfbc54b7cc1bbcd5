import AppStore
import AppStoreServerAPI
import EntitlementAPI
import HTTP1
import HTTP2
import JWS
import RPCCore

/// Every entry point that takes bytes from the network, by name. Each must return normally on
/// any input: a crash, trap or sanitizer report is a bug.
enum FuzzTargets {
    static let all: [String: @Sendable (UnsafeRawBufferPointer) -> Void] = [
        "jws": { JWSVerifier.fuzzParse($0) },
        "notification-v1": { NotificationV1.fuzzParse($0) },
        "notification-v2": { NotificationV2Payload.fuzzParse($0) },
        "verify-receipt": { VerifyReceiptResponse.fuzzParse($0) },
        "jws-transaction": { JWSTransactionPayload.fuzzParse($0) },
        "server-api-answers": { AppStoreServerClient.fuzzReadAnswers($0) },
        // Differential: the purpose-built JSON decoder must read whatever it accepts exactly as
        // JSONSerialization does (it traps on a difference).
        "json-decoders": { AppleJSONDifferential.fuzzCompare($0) },
        "protobuf": { bytes in
            let slice = Array(bytes)[...]
            _ = try? EntitlementV1.SubmitReceiptRequest(protobufBytes: slice)
            _ = try? EntitlementV1.CheckEntitlementResponse(protobufBytes: slice)
            _ = try? EntitlementV1.ListHistoryResponse(protobufBytes: slice)
            _ = try? EntitlementV1.ExplainEntitlementResponse(protobufBytes: slice)
            _ = try? EntitlementV1.RefreshEntitlementsRequest(protobufBytes: slice)
            _ = try? EntitlementV1.RefreshEntitlementsResponse(protobufBytes: slice)
        },
        // App Store app receipts (PKCS#7 + ASN.1 through OpenSSL) from SubmitReceipt's receipt_data.
        "app-receipt": { bytes in _ = try? AppReceipt.inAppPurchases(der: Array(bytes)) },
        "grpc-frames": { bytes in
            var deframer = Deframer(limit: 1 << 16)
            let input = Array(bytes)
            var offset = 0
            while offset < input.count {
                let step = Int(input[offset] % 17) + 1
                let end = min(input.count, offset + step)
                guard (try? deframer.append(input[offset..<end]) { _ in }) != nil else { return }
                offset = end
            }
        },
        // A client's frames after its preface and SETTINGS; requests delivered are answered.
        "http2-server": { HTTP2ServerFuzzing.run($0) },
        // Differential: one request into the session and into nghttp2 with its own checks on; traps
        // when they treat it differently (RequestChecks against the library's rules).
        "http2-request-checks": { RequestChecksFuzzing.run($0) },
        "http1": { bytes in
            let parser = HTTP1RequestParser(limits: .init(maxHeaderBytes: 4096, maxBodySize: 1 << 16))
            var input = Array(bytes)[...]
            while !input.isEmpty {
                let outcome = input.withUnsafeBytes { parser.parse($0) }
                guard case .request(_, _, let consumed) = outcome, consumed > 0 else { return }
                input = input.dropFirst(consumed)
            }
        },
    ]
}
