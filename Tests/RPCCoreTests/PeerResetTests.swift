@testable import RPCCore
import XCTest

/// The rule that decides who ended a call the peer reset: the deadline when the reset came at
/// or after it, the peer otherwise (and always without a deadline).
final class PeerResetTests: XCTestCase {
    func testRuleTable() {
        let deadline = ContinuousClock.now
        let cases: [(String, ContinuousClock.Instant?, ContinuousClock.Instant, Bool)] = [
            ("no deadline", nil, deadline, false),
            ("long before", deadline, deadline - .seconds(1), false),
            ("just before", deadline, deadline - .nanoseconds(1), false),
            ("at the deadline", deadline, deadline, true),
            ("just after", deadline, deadline + .nanoseconds(1), true),
            ("long after", deadline, deadline + .seconds(1), true),
        ]
        for (name, deadline, resetAt, expected) in cases {
            XCTAssertEqual(PeerReset.endsByDeadline(deadline: deadline, resetAt: resetAt), expected, name)
        }
    }

    func testRecordsOnlyALateReset() {
        let deadline = ContinuousClock.now
        let early = PeerReset(deadline: deadline)
        early.record(at: deadline - .milliseconds(1))
        XCTAssertFalse(early.cameAfterDeadline)
        let late = PeerReset(deadline: deadline)
        late.record(at: deadline + .milliseconds(1))
        XCTAssertTrue(late.cameAfterDeadline)
        let unbounded = PeerReset(deadline: nil)
        unbounded.record()
        XCTAssertFalse(unbounded.cameAfterDeadline)
    }
}
