/// jws-bench: ES256 JWS verifications per second on one thread, over real Apple tokens.
///
/// A V2 notification costs three verifications (the notification, its transaction and its
/// renewal info), so this bounds V2 ingest per core without a server, a database or a load
/// generator; Benchmarks/notifications.sh measures the whole path. Prints figures, asserts
/// nothing, and Scripts/test never runs it. Pin it to one core for a per-core figure:
///
///   swift build -c release --product jws-bench
///   taskset -c 1 .build/release/jws-bench [--seconds S] [--samples DIR]
import Foundation
import JWS

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

/// A token and the instant the service verifies it at (its payload's signedDate).
struct TimedToken {
    let compact: String
    let atUnixMs: Int64
}

func signedDate(of compact: String) throws -> Int64 {
    let payload = try JSONSerialization.jsonObject(with: Data(try JWSVerifier.unverifiedPayload(compact)))
    guard let date = (payload as? [String: Any])?["signedDate"] as? NSNumber else {
        throw BenchError(description: "a token without a signedDate")
    }
    return date.int64Value
}

/// The notification and the tokens nested in its `data`, each at its own signedDate.
func notificationTokens(_ file: URL) throws -> [TimedToken] {
    let compact = try String(contentsOf: file, encoding: .utf8)
    var tokens = [TimedToken(compact: compact, atUnixMs: try signedDate(of: compact))]
    let payload = try JSONSerialization.jsonObject(with: Data(try JWSVerifier.unverifiedPayload(compact)))
    let data = (payload as? [String: Any])?["data"] as? [String: Any] ?? [:]
    for field in ["signedTransactionInfo", "signedRenewalInfo"] {
        guard let nested = data[field] as? String else { continue }
        tokens.append(TimedToken(compact: nested, atUnixMs: try signedDate(of: nested)))
    }
    return tokens
}

func measure(_ tokens: [TimedToken], seconds: Double) throws -> (verifications: Int, elapsed: Double) {
    let verifier = JWSVerifier()
    for token in tokens { _ = try verifier.verify(token.compact, at: token.atUnixMs) }
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(seconds * 1e9)
    var count = 0
    var now = start
    while now < deadline {
        for token in tokens { _ = try verifier.verify(token.compact, at: token.atUnixMs) }
        count += tokens.count
        now = DispatchTime.now().uptimeNanoseconds
    }
    return (count, Double(now - start) / 1e9)
}

do {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var seconds = 5.0
    var samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/samples/real-apple-jws").standardizedFileURL
    while !arguments.isEmpty {
        let flag = arguments.removeFirst()
        guard let value = arguments.first else { throw BenchError(description: "\(flag) needs a value") }
        arguments.removeFirst()
        switch flag {
        case "--seconds": seconds = Double(value) ?? seconds
        case "--samples": samples = URL(fileURLWithPath: value)
        default: throw BenchError(description: "usage: jws-bench [--seconds S] [--samples DIR]")
        }
    }
    let file = samples.appendingPathComponent("notification-DID_RENEW-1.jws")
    let tokens = try notificationTokens(file)
    let (count, elapsed) = try measure(tokens, seconds: seconds)
    let perSecond = Double(count) / elapsed
    print(String(format: "jws-bench: %d verifications in %.2f s on one thread: %.0f verifications/s "
                     + "(%.1f us each); %d per notification: %.0f notifications/s",
                 count, elapsed, perSecond, elapsed / Double(count) * 1e6, tokens.count,
                 perSecond / Double(tokens.count)))
} catch {
    FileHandle.standardError.write(Data("jws-bench: \(error)\n".utf8))
    exit(1)
}
