import RPCCore
import XCTest

final class GRPCFramingTests: XCTestCase {
    func framed(_ payloads: [[UInt8]]) -> [UInt8] { payloads.flatMap { GRPCFraming.frame($0) } }

    func testOneMessageRoundTrips() throws {
        let messages = try GRPCFraming.messages(in: GRPCFraming.frame([1, 2, 3])[...], limit: 100)
        XCTAssertEqual(messages.map { Array($0.bytes) }, [[1, 2, 3]])
        XCTAssertEqual(messages.first?.compressed, false)
    }

    /// The transport's body limit comes from here: a body of exactly that size holds one message
    /// at the limit, and the deframer accepts it.
    func testBodySizeHoldsOneMessageOfThatSize() throws {
        let message = [UInt8](repeating: 7, count: 1000)
        let body = GRPCFraming.frame(message)
        XCTAssertEqual(body.count, GRPCFraming.bodySize(forMessageSize: message.count))
        XCTAssertEqual(try GRPCFraming.messages(in: body[...], limit: 1000).map { Array($0.bytes) }, [message])
    }

    func testEmptyMessageIsOneMessage() throws {
        let messages = try GRPCFraming.messages(in: [0, 0, 0, 0, 0][...], limit: 100)
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(messages[0].bytes.isEmpty)
    }

    func testSeveralMessagesInOneRead() throws {
        var deframer = Deframer(limit: 100)
        var seen: [[UInt8]] = []
        try deframer.append(framed([[1], [2, 2], [], [3, 3, 3]])[...]) { seen.append(Array($0.bytes)) }
        XCTAssertEqual(seen, [[1], [2, 2], [], [3, 3, 3]])
        XCTAssertTrue(deframer.isAtBoundary)
    }

    func testMessageSplitAcrossReadsAtEveryOffset() throws {
        let wire = framed([[9, 8, 7, 6], [5]])
        for split in 0...wire.count {
            var deframer = Deframer(limit: 100)
            var seen: [[UInt8]] = []
            try deframer.append(wire[..<split]) { seen.append(Array($0.bytes)) }
            try deframer.append(wire[split...]) { seen.append(Array($0.bytes)) }
            XCTAssertEqual(seen, [[9, 8, 7, 6], [5]], "split at \(split)")
            XCTAssertTrue(deframer.isAtBoundary)
        }
    }

    func testByteAtATime() throws {
        let wire = framed([[1, 2, 3], [4]])
        var deframer = Deframer(limit: 100)
        var seen: [[UInt8]] = []
        for byte in wire { try deframer.append([byte][...]) { seen.append(Array($0.bytes)) } }
        XCTAssertEqual(seen, [[1, 2, 3], [4]])
    }

    func testMessageOverLimitFailsFromPrefixAlone() {
        // Only the prefix has arrived: the length alone must be refused, before buffering.
        var deframer = Deframer(limit: 10)
        XCTAssertThrowsError(try deframer.append([0, 0, 0, 0, 11][...]) { _ in }) { error in
            XCTAssertEqual(error as? GRPCFraming.Failure, .tooLarge(length: 11, limit: 10))
        }
    }

    func testMessageAtLimitPasses() throws {
        let messages = try GRPCFraming.messages(in: GRPCFraming.frame([UInt8](repeating: 1, count: 10))[...], limit: 10)
        XCTAssertEqual(messages.first?.bytes.count, 10)
    }

    func testHugeDeclaredLengthIsRefused() {
        XCTAssertThrowsError(try GRPCFraming.messages(in: [0, 0xFF, 0xFF, 0xFF, 0xFF][...], limit: 4 << 20))
    }

    func testTruncatedBodyIsAnError() {
        XCTAssertThrowsError(try GRPCFraming.messages(in: [0, 0, 0, 0, 3, 1][...], limit: 100)) { error in
            XCTAssertEqual(error as? GRPCFraming.Failure, .truncated)
        }
        XCTAssertThrowsError(try GRPCFraming.messages(in: [0, 0, 0][...], limit: 100))
    }

    func testCompressedFlagIsReportedAndBadFlagRefused() throws {
        let messages = try GRPCFraming.messages(in: [1, 0, 0, 0, 1, 42][...], limit: 100)
        XCTAssertEqual(messages.first?.compressed, true)
        XCTAssertThrowsError(try GRPCFraming.messages(in: [2, 0, 0, 0, 0][...], limit: 100)) { error in
            XCTAssertEqual(error as? GRPCFraming.Failure, .badFlag(2))
        }
    }

    func testPrefixIsBigEndian() {
        XCTAssertEqual(
            Array(GRPCFraming.frame([UInt8](repeating: 0, count: 0x010203)).prefix(5)), [0, 0x00, 0x01, 0x02, 0x03])
    }

    /// The unary call path's variant: the first message and the count, the same refusals.
    func testFirstMessageCountsAndRefusesLikeMessages() throws {
        let cases: [(body: [UInt8], first: [UInt8]?, count: Int)] = [
            ([], nil, 0),
            (GRPCFraming.frame([]), [], 1),
            (GRPCFraming.frame([1, 2, 3]), [1, 2, 3], 1),
            (framed([[4], [5, 6], [7]]), [4], 3),
        ]
        for (body, first, count) in cases {
            let found = try GRPCFraming.firstMessage(in: body[...], limit: 100)
            XCTAssertEqual(found.first.map { Array($0.bytes) }, first, "\(body)")
            XCTAssertEqual(found.count, count, "\(body)")
            XCTAssertEqual(try GRPCFraming.messages(in: body[...], limit: 100).count, count)
        }
        XCTAssertThrowsError(try GRPCFraming.firstMessage(in: GRPCFraming.frame([1, 2, 3]).dropLast(), limit: 100)) {
            XCTAssertEqual($0 as? GRPCFraming.Failure, .truncated)
        }
        XCTAssertThrowsError(try GRPCFraming.firstMessage(in: GRPCFraming.frame([1, 2, 3])[...], limit: 2)) {
            XCTAssertEqual($0 as? GRPCFraming.Failure, .tooLarge(length: 3, limit: 2))
        }
        var compressed = GRPCFraming.frame([9])
        compressed[0] = 1
        XCTAssertEqual(try GRPCFraming.firstMessage(in: compressed[...], limit: 100).first?.compressed, true)
    }
}
