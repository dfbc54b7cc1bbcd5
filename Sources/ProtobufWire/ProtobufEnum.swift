/// A proto3 enum, modelled as a struct over its number rather than a Swift enum.
///
/// Proto3 enums are open: a number added to the schema later must survive decoding and
/// re-encoding by a build that does not know it, so every number is a value and the initializer
/// cannot fail.
public protocol ProtobufEnum: RawRepresentable, Sendable, Hashable where RawValue == Int32 {
    init(rawValue: Int32)
}
