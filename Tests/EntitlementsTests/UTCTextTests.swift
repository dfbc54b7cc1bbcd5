@testable import Entitlements
import XCTest

/// The explanation's own calendar, against instants whose text is known.
final class UTCTextTests: XCTestCase {
    func testISO8601() {
        let rows: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00Z"),
            (1_704_067_200_000, "2024-01-01T00:00:00Z"),
            (1_709_164_800_000, "2024-02-29T00:00:00Z"),
            (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
            (951_782_400_000, "2000-02-29T00:00:00Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (-86_400_000 * 365, "1969-01-01T00:00:00Z"),
            (1_798_761_600_050, "2027-01-01T00:00:00.050Z"),
        ]
        for (milliseconds, text) in rows {
            XCTAssertEqual(UTCText.iso8601(milliseconds: milliseconds), text, "\(milliseconds)")
        }
    }

    func testDuration() {
        XCTAssertEqual(UTCText.duration(milliseconds: 30 * 86_400_000), "30 days")
        XCTAssertEqual(UTCText.duration(milliseconds: 86_400_000), "1 day")
        XCTAssertEqual(UTCText.duration(milliseconds: 3_600_000 * 5), "5 hours")
        XCTAssertEqual(UTCText.duration(milliseconds: 90_000), "90 seconds")
        XCTAssertEqual(UTCText.duration(milliseconds: 1500), "1500 ms")
    }
}
