import AppStore
import SeededRandom
import XCTest

/// The fuzz entry points survive random and mutated input. libFuzzer drives the same entry
/// points for long runs (Scripts/fuzz); this keeps a cheap deterministic run in every test pass.
final class FuzzEntryPointTests: XCTestCase {
    private static let entryPoints: [(String, @Sendable (UnsafeRawBufferPointer) -> Void)] = [
        ("verifyReceipt", VerifyReceiptResponse.fuzzParse),
        ("V1", NotificationV1.fuzzParse),
        ("V2", NotificationV2Payload.fuzzParse),
        ("transaction", JWSTransactionPayload.fuzzParse),
        ("renewal", JWSRenewalInfoPayload.fuzzParse),
    ]

    func testMutatedSamplesAndEdgeCases() throws {
        var seeds = [
            try Samples.bytes("verifyreceipt-sandbox-numbers-oldest-first.json"),
            try Samples.bytes("verifyreceipt-production-strings-newest-first.json"),
            try Samples.bytes("notification-v1-did-renew-sandbox.json"),
        ]
        seeds += [
            "", "{", "[]", "null", "\"x\"", "{\"status\":1e999}", "{\"status\":-0.0}",
            "{\"status\":0,\"latest_receipt_info\":[[[[]]]]}",
            "{\"status\":9223372036854775808}", "{\"status\":0,\"receipt\":{\"in_app\":{}}}",
            String(repeating: "[", count: 10_000), String(repeating: "{\"a\":", count: 5_000),
        ].map { Array($0.utf8) }
        seeds.append([0xEF, 0xBB, 0xBF, 0x7B, 0x7D])
        seeds.append([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D])

        var random = SplitMix64(seed: 0x5EED)
        var inputs = seeds
        for seed in seeds where !seed.isEmpty {
            for _ in 0..<150 {
                var mutated = seed
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let index = Int.random(in: 0..<mutated.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: mutated[index] = UInt8.random(in: 0...255, using: &random)
                    case 1: mutated.removeSubrange(index...)
                    default: mutated.insert(mutated[index], at: index)
                    }
                    if mutated.isEmpty { break }
                }
                inputs.append(mutated)
            }
        }
        for _ in 0..<300 {
            let count = Int.random(in: 0...64, using: &random)
            inputs.append((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        for input in inputs {
            for (_, parse) in Self.entryPoints {
                input.withUnsafeBytes(parse)
            }
        }
    }
}
