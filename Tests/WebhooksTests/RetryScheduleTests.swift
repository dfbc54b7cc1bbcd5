import Testing
import Webhooks

/// The backoff schedule as a pure function: doubling from 1 s, capped at 1 h, jitter within
/// bounds, dead letter once the first attempt is 3 days old.
struct RetryScheduleTests {
    let schedule = RetrySchedule.standard

    @Test(arguments: [
        (1, 1_000 as Int64), (2, 2_000), (3, 4_000), (4, 8_000), (12, 2_048_000), (13, 3_600_000),
        (40, 3_600_000), (1_000, 3_600_000),
    ])
    func withoutJitterTheWaitDoublesUpToOneHour(failures: Int, expectedMs: Int64) {
        #expect(schedule.delayMs(afterFailures: failures, random: 0) == expectedMs)
    }

    @Test(arguments: [1, 2, 5, 12, 13, 50])
    func jitterStretchesByAtMostAQuarterAndNeverPastOneHour(failures: Int) {
        let base = schedule.delayMs(afterFailures: failures, random: 0)
        for random in [0.0, 0.3, 0.999_999] {
            let delay = schedule.delayMs(afterFailures: failures, random: random)
            #expect(delay >= base && delay <= min(3_600_000, base + base / 4))
            #expect(delay >= 1_000 && delay <= 3_600_000)
        }
        if base < 3_600_000 { #expect(schedule.delayMs(afterFailures: failures, random: 0.999) > base) }
    }

    @Test func retriesWhileTheFirstAttemptIsUnderThreeDaysOldThenDeadLetters() {
        let first: Int64 = 1_700_000_000_000
        let threeDays: Int64 = 3 * 86_400_000
        #expect(schedule.nextAttemptAtMs(failedAtMs: first, firstAttemptAtMs: 0, failures: 1, random: 0)
                == first + 1_000)
        #expect(schedule.nextAttemptAtMs(failedAtMs: first + threeDays - 1, firstAttemptAtMs: first, failures: 80,
                                         random: 0) == first + threeDays - 1 + 3_600_000)
        #expect(schedule.nextAttemptAtMs(failedAtMs: first + threeDays, firstAttemptAtMs: first, failures: 81,
                                         random: 0) == nil)
    }

    /// Following the schedule from the first failure: ~80 tries over the 3 days, none more than
    /// an hour apart.
    @Test func theWholeWindowIsAboutEightyTries() {
        var now: Int64 = 1_700_000_000_000
        var first: Int64 = 0
        var failures = 0
        while let next = schedule.nextAttemptAtMs(failedAtMs: now, firstAttemptAtMs: first, failures: failures + 1,
                                                  random: 0) {
            if failures == 0 { first = now }
            failures += 1
            #expect(next - now <= 3_600_000)
            now = next
        }
        #expect((75...90).contains(failures + 1), "\(failures + 1) tries")
    }

    @Test func aTestScheduleKeepsItsOwnBounds() {
        let fast = RetrySchedule(initialMs: 50, maximumMs: 400, windowMs: 2_000)
        #expect(fast.delayMs(afterFailures: 1, random: 0) == 50)
        #expect(fast.delayMs(afterFailures: 10, random: 0.9) == 400)
    }
}
