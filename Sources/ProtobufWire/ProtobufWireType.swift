/// How a field's value is laid out on the wire: the low three bits of every tag.
///
/// A closed enum because the encoding is closed: 6 and 7 are not wire types, and a reader that
/// meets them cannot know how long the value is, so ``ProtobufReader`` rejects them.
public enum ProtobufWireType: UInt8, Sendable, Hashable {
    /// int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    case varint = 0
    /// fixed64, sfixed64, double: eight little-endian bytes.
    case fixed64 = 1
    /// string, bytes, embedded messages, packed repeated scalars: a varint length, then bytes.
    case lengthDelimited = 2
    /// The start of a proto2 group; proto3 never writes groups but an old peer might.
    case startGroup = 3
    /// The end of a proto2 group.
    case endGroup = 4
    /// fixed32, sfixed32, float: four little-endian bytes.
    case fixed32 = 5
}
