/// The stream identifiers a client has used on one connection, to reject a HEADERS frame that
/// tries to open a stream below them, and DATA or HEADERS on a stream that has closed.
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
///
/// Closed streams: nghttp2 can keep each closed stream (a few hundred bytes) to answer a frame
/// on it with STREAM_CLOSED, up to SETTINGS_MAX_CONCURRENT_STREAMS of them per connection: with
/// 256 that grew a server holding 10,000 mostly idle connections by ~240 bytes a call, towards
/// ~600 MB. The session keeps none (`nghttp2_option_set_no_closed_streams`), and this keeps the
/// streams that closed after the client ended its side (END_STREAM or its own RST_STREAM) as
/// ranges: streams close about in the order they opened, so that is one range or a few. A
/// stream the server reset while the client was still sending is left out, so the frames the
/// client had already sent on it are ignored as RFC 9113 §5.1 requires. Past
/// ``maxClosedRanges`` the lowest ranges are forgotten and frames there are ignored (nghttp2's
/// behaviour for a stream it no longer keeps).
struct ClientStreamIDs {
    static let maxSkippedRanges = 64
    static let maxClosedRanges = 64

    /// The highest client-initiated (odd) identifier a HEADERS frame has carried.
    private(set) var highest: Int32 = 0
    /// Odd identifiers never opened, as ranges in ascending order.
    private(set) var skipped: [ClosedRange<Int32>] = []
    /// Odd identifiers closed after the client ended its side, as ranges in ascending order.
    private(set) var closed: [ClosedRange<Int32>] = []

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

    /// Notes that `streamID` closed after the client ended its side: DATA or HEADERS there is
    /// then a connection error of type STREAM_CLOSED (RFC 9113 §5.1, §6.1).
    mutating func noteClosed(_ streamID: Int32) {
        guard streamID > 0, streamID % 2 == 1 else { return }
        let index = Self.rangesStarting(atOrBelow: streamID, in: closed)
        if index > 0 && closed[index - 1].contains(streamID) { return }
        let joinsBelow = index > 0 && closed[index - 1].upperBound + 2 == streamID
        let joinsAbove = index < closed.count && closed[index].lowerBound - 2 == streamID
        switch (joinsBelow, joinsAbove) {
        case (true, true):
            closed[index - 1] = closed[index - 1].lowerBound...closed[index].upperBound
            closed.remove(at: index)
        case (true, false):
            closed[index - 1] = closed[index - 1].lowerBound...streamID
        case (false, true):
            closed[index] = streamID...closed[index].upperBound
        case (false, false):
            closed.insert(streamID...streamID, at: index)
            if closed.count > Self.maxClosedRanges { closed.removeFirst() }
        }
    }

    /// Whether `streamID` closed after the client ended its side (as far as remembered).
    func isClosed(_ streamID: Int32) -> Bool {
        guard streamID % 2 == 1 else { return false }
        let index = Self.rangesStarting(atOrBelow: streamID, in: closed)
        return index > 0 && closed[index - 1].contains(streamID)
    }

    private func wasSkipped(_ streamID: Int32) -> Bool {
        let index = Self.rangesStarting(atOrBelow: streamID, in: skipped)
        return index > 0 && skipped[index - 1].contains(streamID)
    }

    /// How many of `ranges` (ascending, disjoint) start at or below `streamID`: the one that may
    /// hold it is the last of those. Checks the last range first, where new streams land.
    private static func rangesStarting(atOrBelow streamID: Int32, in ranges: [ClosedRange<Int32>]) -> Int {
        guard let last = ranges.last, streamID < last.lowerBound else { return ranges.count }
        var low = 0
        var high = ranges.count - 1
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].lowerBound <= streamID { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
