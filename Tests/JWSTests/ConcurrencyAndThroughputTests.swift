import Dispatch
import Foundation
import JWS
import Synchronization
import XCTest

/// One verifier shared by many threads, and its speed on a real Apple token.
final class ConcurrencyAndThroughputTests: XCTestCase {
    func testOneVerifierServesManyThreadsWithConsistentVerdicts() throws {
        let samples = try AppleSamples.load().map { ($0.file, $0.token, $0.signedDate.int64Value, $0.verified) }
        // Cached (hits share Certificate objects) and uncached (X509_verify_cert on every call,
        // sharing the trust store and its root) must both be safe and agree.
        let verifiers = [JWSVerifier(trustedRoots: .appleRootCAG3),
                         JWSVerifier(trustedRoots: .appleRootCAG3, chainCacheCapacity: 0)]
        let mismatches = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<10 {
                let (file, token, time, verified) = samples[(worker + round) % samples.count]
                for verifier in verifiers {
                    let accepted = (try? verifier.verify(token, at: time)) != nil
                    if accepted != verified {
                        mismatches.withLock { $0.append("\(file) accepted=\(accepted)") }
                    }
                }
            }
        }
        XCTAssertEqual(mismatches.withLock { $0 }, [])
    }

    /// Verifications per second, printed; opt in with JWS_BENCHMARK=1 (debug builds are slower
    /// in the Swift parts, not in OpenSSL, which dominates).
    func testThroughputOnARealAppleToken() throws {
        guard ProcessInfo.processInfo.environment["JWS_BENCHMARK"] == "1" else {
            throw XCTSkip("set JWS_BENCHMARK=1 to measure")
        }
        let sample = try XCTUnwrap(try AppleSamples.load().first { $0.file == "transaction-tx-1.jws" })
        let (token, time) = (sample.token, sample.signedDate.int64Value)
        for (label, capacity, count) in [("no cache", 0, 600), ("chain cache", 16, 6000)] {
            let verifier = JWSVerifier(trustedRoots: .appleRootCAG3, chainCacheCapacity: capacity)
            _ = try verifier.verify(token, at: time)
            for threads in [1, 2] {
                let start = DispatchTime.now().uptimeNanoseconds
                DispatchQueue.concurrentPerform(iterations: threads) { _ in
                    for _ in 0..<(count / threads) {
                        _ = try? verifier.verify(token, at: time)
                    }
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let perSecond = Double(count) / seconds
                print(String(format: "JWS benchmark: %@, %d thread(s): %.0f verifications/s (%.1f us each)",
                             label, threads, perSecond, seconds / Double(count) * 1e6 * Double(threads)))
            }
        }
        // The caller's extra step: reading the unverified payload for its signedDate.
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<6000 { _ = try AppleSamples.signingTime(of: try AppleSamples.unverifiedObject(token)) }
        let each = Double(DispatchTime.now().uptimeNanoseconds - start) / 6000 / 1000
        print(String(format: "JWS benchmark: unverified payload + signedDate: %.1f us", each))
    }
}
