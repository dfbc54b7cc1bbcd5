import ServiceRuntime
import XCTest

/// Each conversion's rounding, by table: the callers (poll timeouts, grpc-timeout, cache TTLs,
/// metrics) depend on which way a fraction goes.
final class DurationUnitsTests: XCTestCase {
    func testWholeMillisecondsTruncateAndRoundUp() {
        let cases: [(Duration, truncated: Int64, roundedUp: Int64)] = [
            (.zero, 0, 0),
            (.microseconds(400), 0, 1),
            (.milliseconds(1), 1, 1),
            (.microseconds(1_001), 1, 2),
            (.seconds(90), 90_000, 90_000),
            (.nanoseconds(1), 0, 1),
        ]
        for (duration, truncated, roundedUp) in cases {
            XCTAssertEqual(duration.inMilliseconds, truncated, "\(duration)")
            XCTAssertEqual(duration.inMillisecondsRoundedUp, roundedUp, "\(duration)")
        }
    }

    func testSecondsAndFractionalMilliseconds() {
        let cases: [(Duration, seconds: Double, milliseconds: Double)] = [
            (.zero, 0, 0),
            (.milliseconds(1_500), 1.5, 1_500),
            (.microseconds(250), 0.000_25, 0.25),
            (.seconds(-2), -2, -2_000),
        ]
        for (duration, seconds, milliseconds) in cases {
            XCTAssertEqual(duration.inSeconds, seconds, accuracy: 1e-12, "\(duration)")
            XCTAssertEqual(duration.inFractionalMilliseconds, milliseconds, accuracy: 1e-9, "\(duration)")
        }
    }

    func testNanosecondsSaturateInsteadOfTrapping() {
        XCTAssertEqual(Duration.seconds(3).inNanosecondsSaturating, 3_000_000_000)
        XCTAssertEqual(Duration.nanoseconds(7).inNanosecondsSaturating, 7)
        XCTAssertEqual(Duration.seconds(Int64.max / 2).inNanosecondsSaturating, .max)
        XCTAssertEqual(Duration.seconds(Int64.min / 2).inNanosecondsSaturating, .min)
    }
}
