import ProtoCodegen
import Testing

/// The parser reads the subset our protos use, keeps the comments as docs, and refuses the rest
/// naming the line, so an unsupported construct fails the build instead of generating wrong Swift.
struct ProtoParserTests {
    static let sample = """
        // The sample package.
        syntax = "proto3";
        package sample.v1;

        // Where a thing stands.
        enum Status {
          STATUS_UNSPECIFIED = 0;
          // Ready.
          STATUS_READY = 1;
        }

        // A thing.
        message Thing {
          // Its id.
          string thing_id = 1;
          repeated Part parts = 3; // not a doc comment
          Status status = 2;

          message Part { bool used = 1; }
        }

        service Things {
          // Not kept.
          rpc Get(Thing) returns (stream Thing);
        }
        """

    @Test func readsDeclarationsAndTheirDocs() throws {
        let file = try ProtoParser.parse(Self.sample, file: "Protos/sample.proto")
        #expect(file.package == "sample.v1")
        #expect(file.doc == ["The sample package."])
        #expect(file.enums.map(\.name) == ["Status"])
        #expect(file.enums[0].doc == ["Where a thing stands."])
        #expect(file.enums[0].values.map(\.name) == ["STATUS_UNSPECIFIED", "STATUS_READY"])
        #expect(file.enums[0].values[1].doc == ["Ready."])
        let thing = try #require(file.messages.first)
        #expect(thing.doc == ["A thing."])
        #expect(thing.fields.map(\.name) == ["thing_id", "parts", "status"])
        #expect(thing.fields.map(\.number) == [1, 3, 2])
        #expect(thing.fields.map(\.isRepeated) == [false, true, false])
        #expect(thing.fields[0].doc == ["Its id."])
        #expect(thing.fields[1].doc == [], "a comment after code on its line documents nothing")
        #expect(thing.messages.map(\.name) == ["Part"])
    }

    /// Each unsupported or malformed construct fails at its own line, saying what it is.
    @Test(arguments: [
        ("message M {\n  optional string a = 1;\n}", 4, "optional"),
        ("message M {\n  oneof choice { string a = 1; }\n}", 4, "oneof"),
        ("message M {\n  map<string, string> tags = 1;\n}", 4, "map"),
        ("message M {\n  string a = 1 [deprecated = true];\n}", 4, "field options"),
        ("message M {\n  string a = 1;\n  string b = 1;\n}", 5, "used twice"),
        ("message M {\n  string a = 0;\n}", 4, "outside"),
        ("enum E {\n  E_A = 0;\n  E_B = 2;\n}", 5, "expected 1"),
        ("enum E {\n  E_A = 1;\n}", 4, "expected 0"),
        ("import \"other.proto\";", 3, "imports"),
        ("message M {\n  string a = 1\n}", 5, "expected ';', found '}'"),
        ("message M {\n  string a = 0x1;\n}", 4, "decimal"),
        ("/* block */", 3, "block comments"),
        ("message M {\n  string a = 1;", 4, "found the end of the file"),
    ])
    func refusesNamingTheLine(body: String, line: Int, words: String) {
        let text = "syntax = \"proto3\";\npackage p;\n" + body
        #expect {
            try ProtoParser.parse(text, file: "Protos/bad.proto")
        } throws: { error in
            guard let error = error as? ProtoSyntaxError else { return false }
            return error.file == "Protos/bad.proto" && error.line == line && error.message.contains(words)
        }
    }

    @Test func refusesProto2AndAFileWithoutPackage() {
        #expect(throws: ProtoSyntaxError.self) {
            try ProtoParser.parse("syntax = \"proto2\";\npackage p;", file: "a")
        }
        #expect(throws: ProtoSyntaxError.self) {
            try ProtoParser.parse("syntax = \"proto3\";\nmessage M {}", file: "a")
        }
    }

    @Test func errorsReadLikeCompilerDiagnostics() {
        let text = "syntax = \"proto3\";\npackage p;\nmessage M {\n  oneof o {}\n}"
        #expect {
            try ProtoParser.parse(text, file: "Protos/x.proto")
        } throws: { error in
            "\(error)".hasPrefix("Protos/x.proto:4: error: 'oneof' is not supported")
        }
    }
}
