/// One field as the generated struct declares, decodes and encodes it.
///
/// Each kind of field pairs a `ProtobufReader` read with the `ProtobufWriter` write of the
/// same wire type, in the direct style hand-written codecs use (a `switch` on number and wire
/// type, typed calls): no per-field closures or key paths, so CheckEntitlement's messages cost
/// what they cost when they were written by hand.
struct SwiftField {
    var number: Int
    /// The property name, backquoted if it is a keyword.
    var property: String
    /// The Swift type, its proto3 default, and the `ProtobufWireType` case it travels as.
    var type, defaultValue, wireType: String
    /// Statements under `case (number, .wireType):` in the decoder, and in `encode(to:)`.
    var decode, encode: [String]
    var doc: [String]

    /// Resolves `field` declared in the messages `scope` of `file`, whose Swift types live in
    /// `namespace`; an unknown type or an unsupported kind fails naming the field's line.
    init(_ field: ProtoField, scope: [String], namespace: String, table: ProtoTypeTable, file: String) throws {
        number = field.number
        property = SwiftNames.identifier(SwiftNames.property(field.name))
        doc = field.doc
        let p = property
        let n = field.number
        if let scalar = ProtoScalar.byName[field.type], !field.isRepeated {
            (type, defaultValue, wireType) = (scalar.swiftType, scalar.defaultValue, scalar.wireType)
            decode = ["\(p) = try reader.\(scalar.reader)()"]
            encode = ["writer.\(scalar.writer)(\(p), field: \(n))"]
            return
        }
        guard ProtoScalar.byName[field.type] == nil, let resolved = table.resolve(field.type, from: scope) else {
            throw ProtoSyntaxError(file: file, line: field.line, message: Self.unsupported(field))
        }
        let swiftType = "\(namespace).\(resolved.path)"
        switch (resolved.declaration, field.isRepeated) {
        case (.enumeration(let zero), false):
            (type, defaultValue, wireType) = (swiftType, "." + SwiftNames.identifier(zero), "varint")
            decode = ["\(p) = \(swiftType)(rawValue: try reader.readEnum())"]
            encode = ["writer.writeEnum(\(p), field: \(n))"]
        case (.message, false):
            // Written when present, even if empty; a second occurrence merges into the first,
            // as the protobuf spec says a singular message field does.
            (type, defaultValue, wireType) = (swiftType + "?", "nil", "lengthDelimited")
            decode = ["if \(p) == nil {", "    \(p) = try reader.readMessage()", "} else {",
                      "    try reader.mergeMessage(into: &\(p)!)", "}"]
            encode = ["if let \(p) {", "    writer.writeMessage(\(p), field: \(n))", "}"]
        case (.message, true):
            // Elements are read in place through a buffer pointer: `for element in` copies each
            // one out, a retain and release per string field, and CheckEntitlement encodes these.
            (type, defaultValue, wireType) = ("[\(swiftType)]", "[]", "lengthDelimited")
            decode = ["\(p).append(try reader.readMessage())"]
            encode = ["\(p).withUnsafeBufferPointer { elements in", "    for index in elements.indices {",
                      "        writer.writeLengthDelimited(field: \(n)) { elements[index].encode(to: &$0) }",
                      "    }", "}"]
        case (.enumeration, true):
            throw ProtoSyntaxError(file: file, line: field.line, message: Self.unsupported(field))
        }
    }

    /// Why `field` cannot be generated, and what would make it work.
    private static func unsupported(_ field: ProtoField) -> String {
        if field.isRepeated && ProtoScalar.byName[field.type] != nil {
            return "repeated \(field.type) is not supported (only repeated messages are): wrap the value in a message"
        }
        if field.isRepeated {
            return "repeated \(field.type) is not supported (only repeated messages are): wrap it in a message, "
                + "or teach SwiftField packed enums"
        }
        let supported = ProtoScalar.byName.keys.sorted().joined(separator: ", ")
        return "unknown type '\(field.type)': not a message or enum of this file, nor a supported scalar "
            + "(\(supported); add a row to ProtoScalar.byName for another)"
    }
}
