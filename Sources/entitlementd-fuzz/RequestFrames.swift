/// A client's request written as HTTP/2 frames by hand, for the differential fuzz target: a real
/// client library refuses to send the malformed requests that target is about.
enum RequestFrames {
    static let opening = HTTP2ServerFuzzing.opening
    static let endStream: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4

    static func frame(type: UInt8, flags: UInt8, stream: Int32, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// Literal fields without indexing (RFC 7541 §6.2.2): no table state, so a block means the
    /// same to both servers whatever each did with the frames before it. Lengths stay under 127.
    static func headerBlock(_ fields: [RequestChecksFuzzing.Field]) -> [UInt8] {
        fields.flatMap { field -> [UInt8] in
            [0x00, UInt8(field.name.count)] + field.name + [UInt8(field.value.count)] + field.value
        }
    }

    /// HEADERS with `fields`, or HEADERS and a CONTINUATION holding the block from `split` on.
    static func headers(endStream: Bool, _ fields: [RequestChecksFuzzing.Field], split: Int? = nil) -> [UInt8] {
        let block = headerBlock(fields)
        let flags = endStream ? Self.endStream : 0
        guard let split, split < block.count else {
            return frame(type: 0x1, flags: endHeaders | flags, stream: 1, block)
        }
        return frame(type: 0x1, flags: flags, stream: 1, Array(block[..<split]))
            + frame(type: 0x9, flags: endHeaders, stream: 1, Array(block[split...]))
    }

    /// The request's HEADERS (and CONTINUATION), DATA and trailers on stream 1.
    static func request(_ request: RequestChecksFuzzing.Request) -> [UInt8] {
        let headOnly = request.payloads.isEmpty && request.trailers == nil
        var bytes = headers(endStream: request.ends && headOnly, request.head, split: request.continuationAt)
        for (index, payload) in request.payloads.enumerated() {
            let last = index == request.payloads.count - 1
            let flags = request.ends && last && request.trailers == nil ? endStream : 0
            bytes += frame(type: 0x0, flags: flags, stream: 1, payload)
        }
        if let trailers = request.trailers { bytes += headers(endStream: request.ends, trailers) }
        return bytes
    }

    /// The error codes of every frame of `type` in server output, `offset` bytes into the frame
    /// (RST_STREAM: 9, GOAWAY: 13, after its last stream id); the output starts at a frame.
    static func codes(in bytes: [UInt8], type: UInt8, at offset: Int) -> [UInt32] {
        var codes: [UInt32] = []
        var start = 0
        while start + 9 <= bytes.count {
            let length = Int(bytes[start]) << 16 | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
            if bytes[start + 3] == type, start + offset + 4 <= bytes.count {
                codes.append(bytes[(start + offset)..<(start + offset + 4)].reduce(0) { $0 << 8 | UInt32($1) })
            }
            start += 9 + length
        }
        return codes
    }
}
