internal import CNGHTTP2
internal import Glibc

/// Telling fields apart and judging their values, byte by byte as nghttp2 does.
extension RequestChecks {
    /// The rule `name` falls under; names are compared exactly (they are lowercase by then).
    static func kind(of name: UnsafeBufferPointer<UInt8>) -> FieldKind {
        switch name.count {
        case 2: return equals(name, "te") ? .te : .other
        case 4: return equals(name, "host") ? .host : .other
        case 5: return equals(name, ":path") ? .path : .other
        case 7:
            if equals(name, ":method") { return .method }
            if equals(name, ":scheme") { return .scheme }
            return equals(name, "upgrade") ? .connectionSpecific : .other
        case 9: return equals(name, ":protocol") ? .protocol : .other
        case 10:
            if equals(name, ":authority") { return .authority }
            return equals(name, "connection") || equals(name, "keep-alive") ? .connectionSpecific : .other
        case 14: return equals(name, "content-length") ? .contentLength : .other
        case 16: return equals(name, "proxy-connection") ? .connectionSpecific : .other
        case 17: return equals(name, "transfer-encoding") ? .connectionSpecific : .other
        default: return .other
        }
    }

    /// Whether `value` has only the characters its field allows (RFC 9113 §8.2.1, §8.3.1); the
    /// pseudo-headers have stricter grammars than other fields.
    static func isValid(_ value: UnsafeBufferPointer<UInt8>, of kind: FieldKind) -> Bool {
        switch kind {
        case .method: return nghttp2_check_method(value.baseAddress, value.count) != 0
        case .path: return nghttp2_check_path(value.baseAddress, value.count) != 0
        case .authority, .host: return nghttp2_check_authority(value.baseAddress, value.count) != 0
        case .scheme: return isScheme(value)
        default: return nghttp2_check_header_value_rfc9113(value.baseAddress, value.count) != 0
        }
    }

    /// RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isScheme(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = value.first, isLetter(first) else { return false }
        return value.dropFirst().allSatisfy { byte in
            isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// A `content-length` value: decimal digits only, at least one, no larger than `Int.max`.
    static func decimal(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !value.isEmpty else { return nil }
        var number = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = number.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            number = sum
        }
        return number
    }

    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount
            && (bytes.isEmpty || memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0)
    }

    /// ASCII case-insensitive comparison with a lowercase `literal`; the exact match clients send
    /// (`te: trailers`, `:scheme: http`) is a memcmp.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        if equals(bytes, literal) { return true }
        for index in 0..<bytes.count {
            var byte = bytes[index]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte |= 0x20 }
            if byte != literal.utf8Start[index] { return false }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
