/// The stream identifiers a client has used on one connection, to reject a HEADERS frame that
/// tries to open a stream below them.
///
/// RFC 9113 §5.1.1: a new stream's identifier must be greater than every one the client opened
/// before, and opening one implicitly closes every lower idle identifier; HEADERS on such an
/// identifier is a connection error of type PROTOCOL_ERROR. nghttp2 1.52 deliberately ignores
/// the frame instead, because a HEADERS frame below the highest identifier is also what a legal
/// peer sends as trailers on a stream that is still open, or late on a stream the server has
/// just reset. What tells them apart is whether the identifier was ever opened: so this keeps
/// the identifiers the client *skipped*, which a well-behaved client never uses again.
///
/// Clients number their streams 1, 3, 5, ... without gaps, so the skipped list is usually empty.
/// A peer that skips on purpose cannot grow it without bound: past ``maxSkippedRanges`` the
/// lowest ranges are forgotten, and a HEADERS frame there falls back to nghttp2's ignoring it.
struct ClientStreamIDs {
    static let maxSkippedRanges = 64

    /// The highest client-initiated (odd) identifier a HEADERS frame has carried.
    private(set) var highest: Int32 = 0
    /// Odd identifiers never opened, as ranges in ascending order.
    private(set) var skipped: [ClosedRange<Int32>] = []

    /// Notes a HEADERS frame on `streamID`; false when it would open a stream the client has
    /// already implicitly closed by skipping it. Even identifiers and 0 are nghttp2's to reject.
    mutating func admitHeaders(streamID: Int32) -> Bool {
        guard streamID > 0, streamID % 2 == 1 else { return true }
        if streamID > highest {
            let firstSkipped = highest == 0 ? 1 : highest + 2
            if firstSkipped < streamID {
                if skipped.count == Self.maxSkippedRanges { skipped.removeFirst() }
                skipped.append(firstSkipped...(streamID - 2))
            }
            highest = streamID
            return true
        }
        return !wasSkipped(streamID)
    }

    private func wasSkipped(_ streamID: Int32) -> Bool {
        // Ascending and disjoint: binary search for the last range starting at or below the id.
        var low = 0
        var high = skipped.count
        while low < high {
            let middle = (low + high) / 2
            if skipped[middle].lowerBound <= streamID { low = middle + 1 } else { high = middle }
        }
        return low > 0 && skipped[low - 1].contains(streamID)
    }
}
