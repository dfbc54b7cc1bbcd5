@testable import HTTP2
import SeededRandom
import XCTest

/// ``FrameHeaderScanner`` finds the same headers however the bytes are cut into reads.
final class FrameHeaderScannerTests: XCTestCase, RawFrameFeeding {
    struct Found: Equatable {
        var type: UInt8
        var streamID: Int32
        var length: Int
    }

    /// Scans `bytes` cut at `cuts` (offsets), as reads; returns the headers and where each ended
    /// in the whole byte stream.
    func scan(_ bytes: [UInt8], cuts: [Int]) -> (found: [Found], ends: [Int]) {
        var scanner = FrameHeaderScanner()
        var found: [Found] = []
        var ends: [Int] = []
        let bounds = [0] + cuts.sorted() + [bytes.count]
        for (start, end) in zip(bounds, bounds.dropFirst()) where start < end {
            bytes[start..<end].withUnsafeBytes { read in
                var position = 0
                while let header = scanner.next(in: read, position: &position) {
                    found.append(Found(type: header.type, streamID: header.streamID, length: header.length))
                    ends.append(start + header.end)
                }
            }
        }
        return (found, ends)
    }

    func testHeadersAreFoundWholeSplitAndAfterThePreface() {
        let frames = [headers(stream: 1, endStream: false, request), data(stream: 1, [1, 2, 3]), rstStream(1),
                      data(stream: 0x7fff_ffff, endStream: true, []),
                      frame(type: 0x8, flags: 0, stream: 3, [0, 0, 1, 0])]
        let bytes = opening + frames.joined()
        var expected = [Found(type: 0x4, streamID: 0, length: 0)]
        var ends = [RawFrames.preface.count + 9]
        var offset = ends[0]
        for frame in frames {
            let length = Int(frame[0]) << 16 | Int(frame[1]) << 8 | Int(frame[2])
            expected.append(Found(type: frame[3], streamID: Int32(frame[5] & 0x7f) << 24 | Int32(frame[6]) << 16
                                  | Int32(frame[7]) << 8 | Int32(frame[8]), length: length))
            ends.append(offset + 9)
            offset += frame.count
        }
        XCTAssertEqual(scan(bytes, cuts: []).found, expected, "one read")
        XCTAssertEqual(scan(bytes, cuts: []).ends, ends)
        XCTAssertEqual(scan(bytes, cuts: Array(1..<bytes.count)).found, expected, "a byte a read")
        var random = SplitMix64(seed: 22)
        for _ in 0..<200 {
            let cuts = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                Int.random(in: 1..<bytes.count, using: &random)
            }
            let scanned = scan(bytes, cuts: cuts)
            XCTAssertEqual(scanned.found, expected, "cut at \(cuts.sorted())")
            XCTAssertEqual(scanned.ends, ends, "cut at \(cuts.sorted())")
        }
    }
}
