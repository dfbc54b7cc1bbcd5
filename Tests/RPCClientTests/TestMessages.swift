import ProtobufWire

/// The test service's one message shape: text to echo, and how to misbehave.
///
/// Hand-written like the service's own messages; the client under test only needs something
/// that is a ``ProtobufMessage``.
struct EchoMessage: ProtobufMessage {
    var text = ""
    /// Handler sleeps this long first (deadline tests).
    var sleepMilliseconds: Int32 = 0
    /// Bytes of padding, for bodies larger than one HTTP/2 window.
    var padding: [UInt8] = []

    init() {}

    init(text: String, sleepMilliseconds: Int32 = 0, padding: [UInt8] = []) {
        self.text = text
        self.sleepMilliseconds = sleepMilliseconds
        self.padding = padding
    }

    init(protobufBytes: ArraySlice<UInt8>) throws {
        var reader = ProtobufReader(protobufBytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): text = try reader.readString()
            case (2, .varint): sleepMilliseconds = try reader.readInt32()
            case (3, .lengthDelimited): padding = try reader.readBytes()
            default: try reader.skip(field)
            }
        }
    }

    func encode(to writer: inout ProtobufWriter) {
        writer.writeString(text, field: 1)
        writer.writeInt32(sleepMilliseconds, field: 2)
        writer.writeBytes(padding, field: 3)
    }
}
