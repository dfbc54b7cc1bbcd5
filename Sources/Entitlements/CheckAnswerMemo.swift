import Synchronization

/// A place beside one ``UserFacts`` value for the last CheckEntitlement answer rendered from it,
/// so a user checked again and again is not judged and encoded again each time.
///
/// It lives and dies with the facts it was attached to (the store's cache attaches one to each
/// user it keeps, ``UserFacts/withCheckAnswerMemo()``): a write that invalidates or refreshes the
/// user replaces the facts and so drops the answer, and changing a copy of the facts detaches it.
/// An answer is handed out again only at instants inside its ``EntitlementCheck/sameAnswerMs``
/// and for the same filters, so it is the answer the rules would give, byte for byte; only the
/// time stamp is rendered per instant, once per millisecond. The bytes are the caller's: the
/// domain keeps them, never reads them.
///
/// Shared by every loop thread that reads the user, hence the lock; a hit holds it for a few
/// comparisons and a retain (a re-render once per millisecond, one copy of the bytes).
public final class CheckAnswerMemo: Sendable {
    private struct Answer {
        var productID: String
        var entitlementID: String
        var sameAnswerMs: ClosedRange<Int64>
        /// The answer without its time stamp, as the caller rendered it.
        var timeless: [UInt8]
        var renderedAtMs: Int64
        var rendered: [UInt8]
    }

    private let answer = Mutex<Answer?>(nil)

    public init() {}

    /// The answer kept for these filters rendered at `instantMs`, if one is kept and still holds
    /// then; `render` stamps the timeless answer with an instant when the last one differs.
    public func answer(
        productID: String, entitlementID: String, at instantMs: Int64,
        render: ([UInt8], Int64) -> [UInt8]
    ) -> [UInt8]? {
        answer.withLock { kept -> [UInt8]? in
            guard let answer = kept, answer.sameAnswerMs.contains(instantMs),
                  answer.productID == productID, answer.entitlementID == entitlementID
            else { return nil }
            if answer.renderedAtMs == instantMs { return answer.rendered }
            let rendered = render(answer.timeless, instantMs)
            kept!.renderedAtMs = instantMs
            kept!.rendered = rendered
            return rendered
        }
    }

    /// Keeps `check`'s answer for these filters in place of the last one: `timeless` is its
    /// rendering without the time stamp, `rendered` with ``EntitlementCheck/evaluatedAtMs``.
    public func keep(
        _ check: EntitlementCheck, productID: String, entitlementID: String, timeless: [UInt8],
        rendered: [UInt8]
    ) {
        let answer = Answer(
            productID: productID, entitlementID: entitlementID, sameAnswerMs: check.sameAnswerMs,
            timeless: timeless, renderedAtMs: check.evaluatedAtMs, rendered: rendered)
        self.answer.withLock { $0 = answer }
    }
}
