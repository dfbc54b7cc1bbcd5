internal import CHTTPParser

/// http_parser's C callbacks: each recovers the parser wrapper and records bytes.
/// A non-zero return stops http_parser with a callback error.
enum HTTP1Callbacks {
    static func install(on settings: inout http_parser_settings) {
        settings.on_url = onURL
        settings.on_header_field = onHeaderField
        settings.on_header_value = onHeaderValue
        settings.on_headers_complete = onHeadersComplete
        settings.on_body = onBody
        settings.on_message_complete = onMessageComplete
    }

    @inline(__always)
    static func owner(_ parser: UnsafeMutablePointer<http_parser>?) -> HTTP1RequestParser {
        Unmanaged<HTTP1RequestParser>.fromOpaque(parser!.pointee.data).takeUnretainedValue()
    }

    static func bytes(_ at: UnsafePointer<CChar>?, _ length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: at, count: length)
    }

    static let onURL: http_data_cb = { parser, at, length in
        let me = owner(parser)
        guard me.countHead(length) else { return 1 }
        me.url.append(contentsOf: bytes(at, length))
        return 0
    }

    static let onHeaderField: http_data_cb = { parser, at, length in
        let me = owner(parser)
        guard me.countHead(length) else { return 1 }
        if me.inValue {
            me.flushHeaderField()
            me.inValue = false
        }
        me.fieldName.append(contentsOf: bytes(at, length))
        return 0
    }

    static let onHeaderValue: http_data_cb = { parser, at, length in
        let me = owner(parser)
        guard me.countHead(length) else { return 1 }
        me.inValue = true
        me.fieldValue.append(contentsOf: bytes(at, length))
        return 0
    }

    static let onHeadersComplete: http_cb = { parser in
        let me = owner(parser)
        me.flushHeaderField()
        me.inValue = false
        if let length = parser?.pointee.content_length, length != UInt64.max,
           length > UInt64(me.limits.maxBodySize) {
            me.limitFailure = (413, "request body too large")
            return -1
        }
        return 0
    }

    static let onBody: http_data_cb = { parser, at, length in
        let me = owner(parser)
        if me.body.count + length > me.limits.maxBodySize {
            me.limitFailure = (413, "request body too large")
            return 1
        }
        me.body.append(contentsOf: bytes(at, length))
        return 0
    }

    static let onMessageComplete: http_cb = { parser in
        owner(parser).complete = true
        http_parser_pause(parser, 1)
        return 0
    }
}
