/// A proto scalar type as Swift holds it and as `ProtobufReader` and `ProtobufWriter`
/// (module ProtobufWire) move it: the generated codec calls these typed methods directly.
struct ProtoScalar {
    var swiftType: String
    var defaultValue: String
    var wireType: String
    var reader: String
    var writer: String

    /// The scalar types our protos use. Another type is one row here, named after the
    /// ProtobufReader and ProtobufWriter methods for it (and a test in ProtoCodegenTests).
    static let byName: [String: ProtoScalar] = [
        "string": ProtoScalar(swiftType: "String", defaultValue: "\"\"", wireType: "lengthDelimited",
                              reader: "readString", writer: "writeString"),
        "bool": ProtoScalar(swiftType: "Bool", defaultValue: "false", wireType: "varint",
                            reader: "readBool", writer: "writeBool"),
        "int32": ProtoScalar(swiftType: "Int32", defaultValue: "0", wireType: "varint",
                             reader: "readInt32", writer: "writeInt32"),
        "int64": ProtoScalar(swiftType: "Int64", defaultValue: "0", wireType: "varint",
                             reader: "readInt64", writer: "writeInt64"),
    ]
}
