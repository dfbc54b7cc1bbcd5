import SeededRandom
@testable import AppStore
import Foundation
import XCTest

/// ``VerifyReceiptAnswerReader`` against the general path (``AppleJSONParser``'s tree read by
/// ``AppleJSONObject``): wherever the direct reader answers, the general path answers the same
/// response; wherever it declines, the general path decides alone. Apple's samples must be read
/// directly, or the reader saves nothing.
final class VerifyReceiptAnswerReaderTests: XCTestCase {
    private static let fuzzCorpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FuzzCorpus")
    private static let samples = ["verifyreceipt-sandbox-numbers-oldest-first.json",
                                  "verifyreceipt-production-strings-newest-first.json"]

    /// Whether the direct reader answered; fails the test where it answered differently.
    @discardableResult
    private func agrees(_ bytes: [UInt8], _ name: @autoclosure () -> String,
                        file: StaticString = #filePath, line: UInt = #line) -> Bool {
        guard let direct = VerifyReceiptAnswerReader.read(bytes, observedAtMs: 7) else { return false }
        do {
            let general = try VerifyReceiptResponse.parseGenerally(bytes, observedAtMs: 7, decoding: .purposeBuilt)
            XCTAssertEqual(direct, general, name(), file: file, line: line)
        } catch {
            XCTFail("\(name()): the direct reader answered where the general path fails with \(error)",
                    file: file, line: line)
        }
        return true
    }

    func testApplesSamplesAreReadDirectlyAndAlike() throws {
        for name in Self.samples {
            let bytes = try Samples.bytes(name)
            XCTAssertTrue(agrees(bytes, name), "\(name) takes the direct reader")
            XCTAssertFalse(try VerifyReceiptResponse.parse(bytes, observedAtMs: 7).transactions.isEmpty, name)
        }
    }

    func testEveryFuzzSeedIsReadAlikeOrDeclined() throws {
        var read = 0
        for target in ["verify-receipt", "json-decoders", "notification-v1"] {
            let directory = Self.fuzzCorpus.appendingPathComponent(target)
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
                if agrees(bytes, "\(target)/\(file)") { read += 1 }
            }
        }
        XCTAssertGreaterThan(read, 0)
    }

    /// Every scalar field of the samples (one per line; a key's first line) replaced by each of many forms: usual
    /// and unusual spellings, wrong types, absent-likes, limits. Each document must be read
    /// alike or declined; many must be read, or the comparison proves little.
    func testEveryFieldInEveryFormIsReadAlikeOrDeclined() throws {
        let forms = [
            "null", #""""#, "0", "1", "2", "-1", "-0", "true", "false", #""true""#, #""TRUE""#, #""1""#,
            #""0""#, #""false""#, #""x""#, #""007""#, #""-5""#, #""+5""#, #"" 5""#, "[]", "{}", "[{}]",
            "9223372036854775807", "9223372036854775808", "18446744073709551615", #""9223372036854775807""#,
            #""123456789012345678""#, #""1234567890123456789""#, "1.5", #""Sandbox""#, #""PROD""#,
            #""Production""#, #""ProductionSandbox""#, #""a\/b""#, #""a\"b""#, "1574317280000",
        ]
        var read = 0, documents = 0
        for name in Self.samples {
            let lines = String(decoding: try Samples.bytes(name), as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var keysDone: Set<Substring> = []
            for (number, line) in lines.enumerated() {
                guard let colon = line.range(of: "\": "), !line.hasSuffix("[") && !line.hasSuffix("{") else { continue }
                // A key's first line stands for the others (the same field of other entries).
                guard keysDone.insert(line[..<colon.upperBound]).inserted else { continue }
                let comma = line.hasSuffix(",") ? "," : ""
                for form in forms {
                    var edited = lines
                    edited[number] = line[..<colon.upperBound] + form + comma
                    documents += 1
                    if agrees(Array(edited.joined(separator: "\n").utf8), "\(name):\(number + 1) = \(form)") {
                        read += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(read, documents / 3, "\(read) of \(documents) read directly")
    }

    /// Shapes around the fields: members repeated or removed, arrays as single objects, iOS 6
    /// receipts, error statuses, whitespace and nesting.
    func testShapesAreReadAlikeOrDeclined() throws {
        let info = #"{"transaction_id":"5","product_id":"p","purchase_date_ms":"10","expires_date_ms":20}"#
        let documents = [
            #"{"status":0}"#, #"{"status":"0","environment":"Sandbox"}"#, #"{"status":21007}"#,
            #"{"status":21100,"is-retryable":true,"environment":"Production","receipt":7}"#,
            #"{"status":21100,"is-retryable":"yes"}"#, #"{"status":0,"status":1}"#,
            #"{"status":0,"receipt":{"in_app":[\#(info)],"receipt_type":"ProductionSandbox"}}"#,
            #"{"status":0,"receipt":{"in_app":[\#(info)],"receipt_type":"Other"}}"#,
            #"{"status":0,"receipt":{"transaction_id":"5","product_id":"p","purchase_date_ms":"1"}}"#,
            #"{"status":0,"receipt":{"in_app":null,"transaction_id":""}}"#,
            #"{"status":0,"receipt":{"in_app":[\#(info)],"transaction_id":true}}"#,
            #"{"status":0,"receipt":{"bundle_id":"","bid":"b"}}"#, #"{"status":0,"receipt":{"bid":"b"}}"#,
            #"{"status":0,"receipt":null,"latest_receipt_info":\#(info)}"#,
            #"{"status":0,"latest_receipt_info":[\#(info),\#(info)]}"#,
            #"{"status":0,"latest_receipt_info":[\#(info)],"latest_expired_receipt_info":[\#(info)]}"#,
            #"{"status":0,"latest_receipt_info":[{"transaction_id":"5","transaction_id":"6","product_id":"p","#
                + #""purchase_date_ms":1}]}"#,
            #"{"status":0,"latest_receipt_info":[{"product_id":"p","purchase_date_ms":1}]}"#,
            #"{"status":0,"latest_receipt_info":[1]}"#, #"{"status":0,"latest_receipt_info":""}"#,
            #"{"status":0,"pending_renewal_info":[{"original_transaction_id":"5","auto_renew_status":"1"},"#
                + #"{"original_transaction_id":"5","auto_renew_status":0,"expiration_intent":"2"}]}"#,
            #"{"status":0,"pending_renewal_info":[{"auto_renew_status":1}]}"#,
            #"{"status":0,"environment":"Xcode","latest_receipt":"a\/b","unknown":[{"x":[1,{"y":null}]}]}"#,
            #"{"status":0,"environment":"Staging"}"#, #" { "status" : 0 , "receipt" : { } } "#,
            #"{"status":0,"x":[[[[[[[[[[[]]]]]]]]]]]}"#, #"{"status":0,"x":1.0}"#, #"{"status":0,"x":"\u0041"}"#,
            #"{"st\/atus":0}"#, #"{"status":0,}"#, #"{"status":0} x"#, #"{"status":0"#, "[]", "",
        ]
        var read = 0
        for document in documents where agrees(Array(document.utf8), document) { read += 1 }
        XCTAssertGreaterThanOrEqual(read, 12, "\(read) of \(documents.count) read directly")
        // Beyond the nesting limit of the general path's decoders, nothing is read directly.
        let deep = #"{"status":0,"x":"# + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "}"
        XCTAssertNil(VerifyReceiptAnswerReader.read(Array(deep.utf8), observedAtMs: 7))
    }

    /// The key matcher: a literal matches its own bytes only, not with any one byte changed,
    /// nor a prefix or an extension of them (lengths around the 8-byte steps).
    func testAKeyMatchesItsLiteralExactly() {
        let literals: [StaticString] = ["", "bid", "status", "in_app_o", "product_id", "purchase_date_ms",
                                        "original_purchase_date_ms", "subscription_group_identifier"]
        // `~=` is what `case "literal":` calls.
        func matches(_ literal: StaticString, _ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBufferPointer { literal ~= VerifyReceiptAnswerReader.RawKey(bytes: $0) }
        }
        for literal in literals {
            let exact = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
            XCTAssertTrue(matches(literal, exact), "\(literal)")
            for position in exact.indices {
                for change: UInt8 in [1, 0x20, 0x80] {
                    var changed = exact
                    changed[position] ^= change
                    XCTAssertFalse(matches(literal, changed), "\(literal) changed at \(position)")
                }
            }
            XCTAssertFalse(matches(literal, exact + [UInt8(ascii: "_")]), "\(literal) extended")
            if !exact.isEmpty { XCTAssertFalse(matches(literal, Array(exact.dropLast())), "\(literal) cut") }
        }
    }

    /// Seeded byte mutations of the samples: read alike or declined.
    func testByteMutationsOfTheSamplesAreReadAlikeOrDeclined() throws {
        var random = SplitMix64(seed: 0x0A11)
        let alphabet = Array(#"{}[]:,"\-0123456789.eEtrufalsn /"#.utf8) + [0x00, 0xC3]
        var read = 0
        for name in Self.samples {
            let document = try Samples.bytes(name)
            for round in 0..<300 {
                var mutated = document
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    let index = Int.random(in: 0..<mutated.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: mutated[index] = alphabet.randomElement(using: &random)!
                    case 1: mutated.remove(at: index)
                    default: mutated.insert(alphabet.randomElement(using: &random)!, at: index)
                    }
                }
                if agrees(mutated, "\(name) mutation \(round)") { read += 1 }
            }
        }
        XCTAssertGreaterThan(read, 100)
    }
}
