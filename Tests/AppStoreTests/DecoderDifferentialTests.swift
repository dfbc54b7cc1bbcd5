import AppStore
import Foundation
import SeededRandom
import XCTest

/// The purpose-built JSON decoder reads every document exactly as `JSONSerialization` did:
/// Apple's samples, the committed fuzz seeds, edge cases and mutations of them. The
/// `json-decoders` fuzz target runs the same comparison for long runs.
final class DecoderDifferentialTests: XCTestCase {
    private static let fuzzCorpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    /// Apple's JSON documents: the shared samples and the payloads of the real Apple JWS.
    private func appleDocuments() throws -> [(String, [UInt8])] {
        var documents: [(String, [UInt8])] = []
        for name in ["verifyreceipt-sandbox-numbers-oldest-first.json",
                     "verifyreceipt-production-strings-newest-first.json",
                     "notification-v1-did-renew-sandbox.json"] {
            documents.append((name, try Samples.bytes(name)))
        }
        let jwsDirectory = Samples.directory.appendingPathComponent("real-apple-jws")
        for file in try FileManager.default.contentsOfDirectory(atPath: jwsDirectory.path).sorted()
        where file.hasSuffix(".jws") {
            let token = try String(contentsOf: jwsDirectory.appendingPathComponent(file), encoding: .utf8)
            let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
            XCTAssertEqual(parts.count, 3, file)
            documents.append(("\(file) header", try Self.base64URL(parts[0])))
            documents.append(("\(file) payload", try Self.base64URL(parts[1])))
        }
        return documents
    }

    /// The committed seeds of every JSON fuzz target, valid and broken alike.
    private func seedDocuments() throws -> [(String, [UInt8])] {
        var documents: [(String, [UInt8])] = []
        for target in ["verify-receipt", "notification-v1", "notification-v2", "jws-transaction", "json-decoders"] {
            let directory = Self.fuzzCorpus.appendingPathComponent(target)
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
                documents.append(("\(target)/\(file)", Array(bytes)))
            }
        }
        return documents
    }

    func testAppleDocumentsAreReadByThePurposeBuiltDecoderAndAlike() throws {
        let documents = try appleDocuments()
        XCTAssertGreaterThanOrEqual(documents.count, 20)
        for (name, bytes) in documents {
            XCTAssertNil(AppleJSONDifferential.difference(bytes), name)
            // Apple's own shapes must take the fast path, or the decoder saves nothing. Xcode's
            // StoreKit testing writes fractional dates, which go to JSONSerialization.
            let xcode = String(decoding: bytes, as: UTF8.self).contains(#""environment":"Xcode""#)
            XCTAssertEqual(AppleJSONDifferential.isReadByPurposeBuiltDecoder(bytes), !xcode, name)
        }
    }

    func testVerifyReceiptSamplesParseIdentically() throws {
        for name in ["verifyreceipt-sandbox-numbers-oldest-first.json",
                     "verifyreceipt-production-strings-newest-first.json"] {
            let bytes = try Samples.bytes(name)
            let new = try VerifyReceiptResponse.parse(bytes, observedAtMs: 42)
            let old = try VerifyReceiptResponse.parse(bytes, observedAtMs: 42, decoding: .foundation)
            XCTAssertEqual(new, old, name)
            XCTAssertFalse(new.transactions.isEmpty, name)
        }
    }

    func testEverySeedParsesIdenticallyAsAVerifyReceiptAnswer() throws {
        for (name, bytes) in try seedDocuments() {
            XCTAssertNil(AppleJSONDifferential.difference(bytes), name)
            let new = Result { () throws(AppStoreFormatError) in
                try VerifyReceiptResponse.parse(bytes, observedAtMs: 7)
            }
            let old = Result { () throws(AppStoreFormatError) in
                try VerifyReceiptResponse.parse(bytes, observedAtMs: 7, decoding: .foundation)
            }
            switch (new, old) {
            case let (.success(a), .success(b)): XCTAssertEqual(a, b, name)
            case let (.failure(a), .failure(b)): XCTAssertEqual(a, b, name)
            default: XCTFail("\(name): one decoder parsed, the other failed: \(new) vs \(old)")
            }
        }
    }

    /// Inputs at the edges of the subset: each is either read alike or declined.
    func testEdgeCasesAreReadAlikeOrDeclined() {
        let alike = [
            #"{}"#, #" {"a" : [ ] , "b":{ } }"#, "\t{\"a\":1}\r\n", #"{"a":-0}"#, #"{"a":0}"#,
            #"{"a":9223372036854775807,"b":-9223372036854775808,"c":18446744073709551615}"#,
            #"{"a":"x","a":"y"}"#, #"{"a":"","b":null,"c":true,"d":false}"#,
            #"{"s":"\/\"\\\b\f\n\r\t","k\n":1}"#, #"{"a":[1,"2",[true,{"b":null}]]}"#,
            #"{"quantity":"1","is_upgraded":"TRUE","x":1000000595277993}"#,
        ]
        for text in alike {
            let bytes = Array(text.utf8)
            XCTAssertTrue(AppleJSONDifferential.isReadByPurposeBuiltDecoder(bytes), text)
            XCTAssertNil(AppleJSONDifferential.difference(bytes), text)
        }
        let declined = [
            #"{"a":1.0}"#, #"{"a":1e3}"#, #"{"a":18446744073709551616}"#, #"{"a":-9223372036854775809}"#,
            #"{"a":"\u0041"}"#, #"{"a":"é"}"#, #"{"a":1,}"#, #"{"a":[1,]}"#, #"[1]"#, #"{"a":01}"#,
            #"{"a":tru}"#, #"{"a":1} x"#, "{\"a\":\"\t\"}", "\u{FEFF}{}", #"{"a":"x"#, "",
        ]
        for text in declined {
            XCTAssertFalse(AppleJSONDifferential.isReadByPurposeBuiltDecoder(Array(text.utf8)), text)
        }
    }

    /// Seeded mutations of Apple's documents and the seeds: both decoders must agree on each.
    func testMutationsAreReadAlike() throws {
        var random = SplitMix64(seed: 0xD1FF)
        let documents = try appleDocuments().map(\.1) + seedDocuments().map(\.1)
        let alphabet = Array(#"{}[]:,"\-0123456789.eEtrufalsn /bu"#.utf8) + [0x00, 0x7F, 0xC3, 0xA9]
        var accepted = 0
        for document in documents where !document.isEmpty {
            for _ in 0..<40 {
                var mutated = document
                for _ in 0..<Int.random(in: 1...3, using: &random) where !mutated.isEmpty {
                    let index = Int.random(in: 0..<mutated.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: mutated[index] = alphabet.randomElement(using: &random)!
                    case 1: mutated.remove(at: index)
                    default: mutated.insert(alphabet.randomElement(using: &random)!, at: index)
                    }
                }
                XCTAssertNil(AppleJSONDifferential.difference(mutated),
                             String(decoding: mutated.prefix(200), as: UTF8.self))
                if AppleJSONDifferential.isReadByPurposeBuiltDecoder(mutated) { accepted += 1 }
            }
        }
        // The comparison means something only if many mutants are read by the new decoder.
        XCTAssertGreaterThan(accepted, 200)
    }

    private static func base64URL(_ part: Substring) throws -> [UInt8] {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Array(try XCTUnwrap(Data(base64Encoded: text)))
    }
}
