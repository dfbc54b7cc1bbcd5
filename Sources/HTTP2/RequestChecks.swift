internal import CNGHTTP2

/// The request rules of RFC 9113 §8 that libnghttp2 enforces with its HTTP messaging on, kept
/// here so that a request with neither `:authority` nor `host` is served.
///
/// nghttp2 (1.52, lib/nghttp2_http.c) requires one of the two, which RFC 9113 §8.3.1 lets a
/// client omit (haproxy's HTTP/2 health check does). The session turns the library's checks off
/// and this value makes the same ones, in the same order, with that requirement left out:
/// conformance suites see the same stream errors as before. Characters are judged by nghttp2's
/// own public checks (`nghttp2_check_header_name` and the like). One value lives from a stream's
/// first HEADERS to its END_STREAM, so trailers and DATA are checked against what the head said.
struct RequestChecks {
    /// The fields nghttp2 gives a rule of their own; every other name is `.other`.
    enum FieldKind: Equatable {
        case authority, method, path, scheme, `protocol`, host, contentLength, te
        /// `connection`, `keep-alive`, `proxy-connection`, `transfer-encoding`, `upgrade`.
        case connectionSpecific
        case other
    }

    private struct Seen: OptionSet {
        let rawValue: UInt16
        static let authority = Seen(rawValue: 1 << 0)
        static let method = Seen(rawValue: 1 << 1)
        static let path = Seen(rawValue: 1 << 2)
        static let scheme = Seen(rawValue: 1 << 3)
        static let host = Seen(rawValue: 1 << 4)
        static let connect = Seen(rawValue: 1 << 5)
        static let options = Seen(rawValue: 1 << 6)
        /// `:path` starts with "/".
        static let regularPath = Seen(rawValue: 1 << 7)
        /// `:path` is "*".
        static let asteriskPath = Seen(rawValue: 1 << 8)
        /// `:scheme` is http or https, whose `:path` must be one of the two above.
        static let httpScheme = Seen(rawValue: 1 << 9)
        /// A regular field came: no pseudo-header may follow (RFC 9113 §8.3).
        static let regularField = Seen(rawValue: 1 << 10)
    }

    private var seen: Seen = []
    /// The `content-length` value; -1 while none was declared (or for CONNECT).
    private(set) var declaredLength = -1
    /// DATA payload bytes so far, padding excluded.
    private(set) var receivedLength = 0

    /// Whether one field of the request's head (`inTrailers` false) or of its trailers keeps the
    /// request well-formed; false resets the stream with PROTOCOL_ERROR (RFC 9113 §8.1.1).
    ///
    /// A bad character anywhere is malformed: nghttp2 drops a regular field with one only when
    /// an `on_invalid_header` callback asks it to, and the session sets none.
    mutating func acceptField(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
                              inTrailers: Bool) -> Bool {
        let isPseudo = name.first == UInt8(ascii: ":")
        guard nghttp2_check_header_name(name.baseAddress, name.count) != 0 else { return false }
        let kind = Self.kind(of: name)
        guard Self.isValid(value, of: kind) else { return false }
        if isPseudo && (inTrailers || seen.contains(.regularField)) { return false }
        switch kind {
        case .authority, .host:
            guard firstNonEmpty(kind == .authority ? .authority : .host, value) else { return false }
        case .method:
            guard firstNonEmpty(.method, value) else { return false }
            if Self.equals(value, "CONNECT") { seen.insert(.connect) }
            if Self.equals(value, "OPTIONS") { seen.insert(.options) }
        case .path:
            guard firstNonEmpty(.path, value) else { return false }
            if value[0] == UInt8(ascii: "/") {
                seen.insert(.regularPath)
            } else if value.count == 1 && value[0] == UInt8(ascii: "*") {
                seen.insert(.asteriskPath)
            }
        case .scheme:
            guard firstNonEmpty(.scheme, value) else { return false }
            if Self.equalsIgnoringCase(value, "http") || Self.equalsIgnoringCase(value, "https") {
                seen.insert(.httpScheme)
            }
        case .protocol:
            // Extended CONNECT (RFC 8441) needs SETTINGS_ENABLE_CONNECT_PROTOCOL, never sent.
            return false
        case .contentLength:
            guard declaredLength == -1, let length = Self.decimal(value) else { return false }
            declaredLength = length
        case .connectionSpecific:
            return false
        case .te:
            guard Self.equalsIgnoringCase(value, "trailers") else { return false }
        case .other:
            if isPseudo { return false }
        }
        if !isPseudo { seen.insert(.regularField) }
        return true
    }

    /// Whether the complete head makes a well-formed request (RFC 9113 §8.3.1, §8.5); false
    /// resets the stream. Neither `:authority` nor `host` is required, except by CONNECT.
    mutating func acceptHead(endsStream: Bool) -> Bool {
        if seen.contains(.connect) {
            guard seen.isDisjoint(with: [.scheme, .path]), seen.contains(.authority) else { return false }
            // A tunnel's DATA is not a body: its content-length says nothing about it.
            declaredLength = -1
        } else {
            guard seen.isSuperset(of: [.method, .path, .scheme]) else { return false }
            if seen.contains(.httpScheme) && !seen.contains(.regularPath)
                && !seen.isSuperset(of: [.options, .asteriskPath]) {
                return false
            }
        }
        return !endsStream || acceptEndOfStream()
    }

    /// Whether trailers are acceptable: they must end the stream (RFC 9113 §8.1).
    func acceptTrailers(endsStream: Bool) -> Bool {
        endsStream && acceptEndOfStream()
    }

    /// Counts DATA payload; false once it exceeds the declared `content-length` (RFC 9113 §8.1.1).
    mutating func acceptData(count: Int) -> Bool {
        receivedLength += count
        return declaredLength == -1 || receivedLength <= declaredLength
    }

    /// Whether the body that ended matches the declared `content-length`.
    func acceptEndOfStream() -> Bool {
        declaredLength == -1 || declaredLength == receivedLength
    }

    /// Records the first occurrence of a pseudo-header (or `host`); false for a repeat or an
    /// empty value.
    private mutating func firstNonEmpty(_ field: Seen, _ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !seen.contains(field), !value.isEmpty else { return false }
        seen.insert(field)
        return true
    }
}
