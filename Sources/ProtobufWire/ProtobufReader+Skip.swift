/// Skipping fields a decoder does not know, which is what lets old code read new messages.
extension ProtobufReader {
    /// How deeply groups may nest inside one skipped group; protobuf's own recursion limit.
    /// Bounds the recursion so hostile input cannot exhaust the stack.
    public static let maximumGroupDepth = 100

    /// Skips the value of `field`, whose tag was just read.
    ///
    /// Proto3 has no groups, but a field from an old proto2 peer may be one, so a start-group
    /// field is skipped whole, through its matching end-group tag, including nested groups. An
    /// end-group tag with no start, an end-group tag for a different field number, and a group
    /// that never ends are all malformed.
    public mutating func skip(_ field: ProtobufField) throws {
        switch field.wireType {
        case .varint:
            _ = try readVarint()
        case .fixed64:
            _ = try consume(8, "fixed64")
        case .fixed32:
            _ = try consume(4, "fixed32")
        case .lengthDelimited:
            _ = try readLengthDelimited()
        case .startGroup:
            try skipGroup(number: field.number, depth: 1)
        case .endGroup:
            throw decodingError(.malformedGroup, "end of group \(field.number) without its start",
                        at: index)
        }
    }

    private mutating func skipGroup(number: Int, depth: Int) throws {
        guard depth <= Self.maximumGroupDepth else {
            throw decodingError(.malformedGroup, "groups nested deeper than \(Self.maximumGroupDepth)",
                        at: index)
        }
        while let field = try nextField() {
            switch field.wireType {
            case .endGroup:
                guard field.number == number else {
                    throw decodingError(.malformedGroup,
                                "end of group \(field.number) inside group \(number)", at: index)
                }
                return
            case .startGroup:
                try skipGroup(number: field.number, depth: depth + 1)
            default:
                try skip(field)
            }
        }
        throw decodingError(.truncated, "input ends inside group \(number)", at: index)
    }
}
