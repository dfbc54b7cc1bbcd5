/// A proto3 enum, modelled as a struct over its number rather than a Swift enum.
///
/// Proto3 enums are open: a number added to the schema later must survive decoding and
/// re-encoding by a build that does not know it, so every number is a value and the initializer
/// cannot fail.
public protocol ProtobufEnum: RawRepresentable, Sendable, Hashable where RawValue == Int32 {
    init(rawValue: Int32)
}

/// A ``ProtobufEnum`` that reads as its .proto value names, so each enum states only its table.
public protocol ProtobufNamedEnum: ProtobufEnum, CustomStringConvertible {
    /// The .proto value names in number order: every enum of our protos numbers from 0 without gaps.
    static var protoNames: [String] { get }
}

extension ProtobufNamedEnum {
    /// The .proto name, or `Type(number)` for a number this build does not know: open enums keep
    /// such numbers, and logs should show them rather than a guess.
    public var description: String {
        let index = Int(rawValue)
        return Self.protoNames.indices.contains(index) ? Self.protoNames[index] : "\(Self.self)(\(rawValue))"
    }
}
