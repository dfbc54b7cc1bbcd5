/// gRPC's length-prefixed message framing: 1 flag byte (compressed or not), 4 bytes big-endian
/// length, then the message.
public enum GRPCFraming {
    public struct Message: Equatable, Sendable {
        public var compressed: Bool
        public var bytes: ArraySlice<UInt8>
    }

    /// The bytes before each message: the flag byte and the 4-byte length.
    public static let prefixLength = 5

    /// The request body that holds one message of `messageSize` bytes: what the HTTP layer
    /// must accept for the gRPC layer to see, and refuse, anything larger.
    public static func bodySize(forMessageSize messageSize: Int) -> Int {
        messageSize + prefixLength
    }

    public enum Failure: Error, Equatable, Sendable {
        /// The body ends inside a prefix or a message.
        case truncated
        /// A message longer than the limit: RESOURCE_EXHAUSTED.
        case tooLarge(length: Int, limit: Int)
        /// A flag byte other than 0 or 1.
        case badFlag(UInt8)
    }

    /// Frames one uncompressed message.
    public static func frame(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(prefixLength + message.count)
        appendPrefix(length: message.count, to: &out)
        out.append(contentsOf: message)
        return out
    }

    public static func appendPrefix(length: Int, to out: inout [UInt8]) {
        out.append(0)
        out.append(UInt8(truncatingIfNeeded: length >> 24))
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
    }

    /// A unary call's body: its first message and how many there were, with the same checks as
    /// ``messages(in:limit:)`` but no array (the call path needs one message, or the count to
    /// refuse the rest).
    public static func firstMessage(in body: ArraySlice<UInt8>, limit: Int) throws(Failure)
        -> (first: Message?, count: Int) {
        var first: Message?
        var count = 0
        var deframer = Deframer(limit: limit)
        try deframer.append(body) { message in
            if count == 0 { first = message }
            count += 1
        }
        guard deframer.isAtBoundary else { throw .truncated }
        return (first, count)
    }

    /// Splits a whole request body into messages, checking every length before slicing.
    public static func messages(in body: ArraySlice<UInt8>, limit: Int) throws(Failure) -> [Message] {
        var result: [Message] = []
        var deframer = Deframer(limit: limit)
        try deframer.append(body) { result.append($0) }
        guard deframer.isAtBoundary else { throw .truncated }
        return result
    }
}

/// An incremental deframer: bytes may arrive split anywhere, several messages may arrive in
/// one read. Memory is bounded by `limit` plus one prefix.
public struct Deframer: Sendable {
    let limit: Int
    var pending: [UInt8] = []

    public init(limit: Int) { self.limit = limit }

    /// True when no partial prefix or message is buffered.
    public var isAtBoundary: Bool { pending.isEmpty }

    public mutating func append(
        _ bytes: ArraySlice<UInt8>, _ emit: (GRPCFraming.Message) -> Void
    ) throws(GRPCFraming.Failure) {
        var input = bytes
        if !pending.isEmpty {
            pending.append(contentsOf: input)
            input = pending[...]
            pending = []
        }
        let prefix = GRPCFraming.prefixLength
        while input.count >= prefix {
            let start = input.startIndex
            let flag = input[start]
            guard flag <= 1 else { throw .badFlag(flag) }
            let length = Int(input[start + 1]) << 24 | Int(input[start + 2]) << 16
                | Int(input[start + 3]) << 8 | Int(input[start + 4])
            guard length <= limit else { throw .tooLarge(length: length, limit: limit) }
            guard input.count >= prefix + length else { break }
            emit(GRPCFraming.Message(compressed: flag == 1, bytes: input[(start + prefix)..<(start + prefix + length)]))
            input = input[(start + prefix + length)...]
        }
        pending = Array(input)
    }
}
