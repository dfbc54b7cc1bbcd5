import ProtoCodegen
import Testing

/// The emitted Swift declares what callers use (names, defaults, docs) and codes each field with
/// the typed reader and writer of its wire type; compiling EntitlementAPI checks the rest.
struct SwiftEmitterTests {
    private func emitted(_ text: String = ProtoParserTests.sample) throws -> String {
        try SwiftEmitter.emit([ProtoParser.parse(text, file: "Protos/sample.proto")])[0]
    }

    @Test func declaresTheNamespaceTypesAndDocs() throws {
        let swift = try emitted()
        #expect(swift.contains("/// The sample package.\n///\n/// The `sample.v1` package of Protos/sample.proto.\n"
                               + "public enum SampleV1 {}"))
        #expect(swift.contains("extension SampleV1 {"))
        #expect(swift.contains("    /// A thing.\n    ///\n    /// `sample.v1.Thing` in Protos/sample.proto.\n"
                               + "    public struct Thing: ProtobufMessage {"))
        #expect(swift.contains("        /// Its id.\n        public var thingID: String = \"\""))
        #expect(swift.contains("public var parts: [SampleV1.Thing.Part] = []"))
        #expect(swift.contains("public var status: SampleV1.Status = .unspecified"))
        #expect(swift.contains("public struct Part: ProtobufMessage {"))
        #expect(swift.contains("public init(used: Bool = false) {"))
    }

    @Test func enumsAreOpenStructsWithTheirProtoNames() throws {
        let swift = try emitted()
        #expect(swift.contains("public struct Status: ProtobufNamedEnum {"))
        #expect(swift.contains("public static let unspecified = Status(rawValue: 0)"))
        #expect(swift.contains("/// Ready.\n        public static let ready = Status(rawValue: 1)"))
        #expect(swift.contains("\"STATUS_UNSPECIFIED\",\n            \"STATUS_READY\",\n        ]"))
    }

    /// Decoding switches on number and wire type; encoding goes in field-number order (3 is
    /// declared before 2 in the sample), as protobuf's own runtimes write.
    @Test func codecCallsTheTypedReaderAndWriterOfEachField() throws {
        let swift = try emitted()
        #expect(swift.contains("case (1, .lengthDelimited): thingID = try reader.readString()"))
        #expect(swift.contains("case (2, .varint): status = SampleV1.Status(rawValue: try reader.readEnum())"))
        #expect(swift.contains("case (3, .lengthDelimited): parts.append(try reader.readMessage())"))
        #expect(swift.contains("default: try reader.skip(field)"))
        let id = try #require(swift.firstRange(of: "writer.writeString(thingID, field: 1)"))
        let status = try #require(swift.firstRange(of: "writer.writeEnum(status, field: 2)"))
        let parts = try #require(swift.firstRange(of: "writer.writeLengthDelimited(field: 3)"))
        #expect(id.lowerBound < status.lowerBound && status.lowerBound < parts.lowerBound)
    }

    /// A singular message field is optional, written when present, and merges a second occurrence.
    @Test func singularMessageFieldsMerge() throws {
        let swift = try emitted("""
            syntax = "proto3";
            package p;
            message Inner { int64 at_ms = 1; }
            message Outer { Inner inner = 4; }
            """)
        #expect(swift.contains("public var inner: P.Inner? = nil"))
        #expect(swift.contains("if inner == nil {\n                        inner = try reader.readMessage()"))
        #expect(swift.contains("try reader.mergeMessage(into: &inner!)"))
        #expect(swift.contains("if let inner {\n                writer.writeMessage(inner, field: 4)"))
        #expect(swift.contains("case (1, .varint): atMs = try reader.readInt64()"))
    }

    @Test func aMessageWithoutFieldsSkipsEverything() throws {
        let swift = try emitted("syntax = \"proto3\";\npackage p;\nmessage Empty {}")
        #expect(swift.contains("while let field = try reader.nextField() {\n                try reader.skip(field)"))
        #expect(!swift.contains("switch"))
    }

    /// A package split over two files is declared once.
    @Test func oneNamespacePerPackage() throws {
        let files = try ["A", "B"].map { try ProtoParser.parse("syntax = \"proto3\";\npackage p.v1;\nmessage \($0) {}",
                                                                file: "\($0).proto") }
        let swift = try SwiftEmitter.emit(files)
        #expect(swift[0].contains("public enum PV1 {}"))
        #expect(!swift[1].contains("public enum PV1"))
    }

    /// Types the generator cannot code fail at the field's line, saying what to do instead.
    @Test(arguments: [
        ("message M {\n  Missing m = 1;\n}", "unknown type 'Missing'"),
        ("message M {\n  double d = 1;\n}", "add a row to ProtoScalar.byName"),
        ("message M {\n  repeated string s = 1;\n}", "repeated string is not supported"),
        ("enum E { E_A = 0; }\nmessage M {\n  repeated E e = 1;\n}", "repeated E is not supported"),
    ])
    func unsupportedFieldTypesFailAtTheirLine(body: String, words: String) throws {
        let file = try ProtoParser.parse("syntax = \"proto3\";\npackage p;\n" + body, file: "x.proto")
        let fieldLine = 2 + body.split(separator: "\n").firstIndex { $0.contains(" = 1;") }! + 1
        #expect {
            try SwiftEmitter.emit([file])
        } throws: { error in
            guard let error = error as? ProtoSyntaxError else { return false }
            return error.line == fieldLine && error.message.contains(words)
        }
    }
}
