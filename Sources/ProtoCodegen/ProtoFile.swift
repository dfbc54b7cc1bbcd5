/// One parsed .proto file: the declarations the generator turns into Swift, nothing more.
///
/// Services are parsed (so a malformed one fails the build) but not kept: the RPC router's
/// method names are written by hand where handlers are registered.
public struct ProtoFile: Equatable, Sendable {
    /// The path the file was read from, for messages and the generated file's header.
    public var path: String
    /// The `package`, e.g. `entitlement.v1`.
    public var package: String
    /// The comment at the top of the file, before `syntax`.
    public var doc: [String]
    public var messages: [ProtoMessage]
    public var enums: [ProtoEnum]
}

public struct ProtoMessage: Equatable, Sendable {
    public var name: String
    public var doc: [String]
    public var line: Int
    /// In declaration order, which is also the order of the Swift properties and initializer
    /// parameters (encoding follows field numbers instead).
    public var fields: [ProtoField]
    public var messages: [ProtoMessage]
    public var enums: [ProtoEnum]
}

public struct ProtoField: Equatable, Sendable {
    public var name: String
    public var number: Int
    /// The type as written: a scalar keyword or a (possibly dotted) message or enum name.
    public var type: String
    public var isRepeated: Bool
    public var doc: [String]
    public var line: Int
}

public struct ProtoEnum: Equatable, Sendable {
    public var name: String
    public var doc: [String]
    public var line: Int
    /// Numbered 0, 1, 2... in order: the parser refuses anything else (see ``ProtoParser``).
    public var values: [ProtoEnumValue]
}

public struct ProtoEnumValue: Equatable, Sendable {
    public var name: String
    public var number: Int
    public var doc: [String]
    public var line: Int
}
