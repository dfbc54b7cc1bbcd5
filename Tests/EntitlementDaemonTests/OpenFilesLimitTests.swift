@testable import EntitlementDaemon
import Testing

/// The open-files rule: raise the soft limit to what --max-connections needs, never past the
/// hard limit, and say when that is not enough.
struct OpenFilesLimitTests {
    @Test(arguments: [
        // soft, hard, needed -> plan
        (UInt64(1_024), UInt64(524_288), UInt64(10_320), OpenFilesLimit.Plan.raise(soft: 10_320, sufficient: true)),
        (1_024, UInt64.max, 10_320, .raise(soft: 10_320, sufficient: true)),  // RLIM_INFINITY
        (1_024, 4_096, 10_320, .raise(soft: 4_096, sufficient: false)),
        (65_536, 65_536, 10_320, .keep),
        (10_320, 10_320, 10_320, .keep),
        (1_024, 1_024, 10_320, .insufficient),
    ])
    func plan(soft: UInt64, hard: UInt64, needed: UInt64, expected: OpenFilesLimit.Plan) {
        #expect(OpenFilesLimit.plan(soft: soft, hard: hard, needed: needed) == expected)
    }

    @Test func neededCoversConnectionsAppleCallsAndAMargin() {
        #expect(OpenFilesLimit.needed(maxConnections: 10_000, appleConcurrency: 64) == 10_320)
        #expect(OpenFilesLimit.needed(maxConnections: -1, appleConcurrency: 0) == 256)
    }
}
