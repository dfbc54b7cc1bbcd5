/// Returns shared Strings for the header names and values every gRPC request repeats.
///
/// Creating a String per header field is a measurable share of the hot path (UTF-8
/// validation, and a heap allocation for anything over 15 bytes such as
/// "application/grpc"). Known fields are matched by bytes and answered with a literal.
enum HeaderInterning {
    static let known: [(bytes: [UInt8], string: String)] = [
        "content-type", "te", "trailers", "user-agent", "application/grpc", "grpc-timeout",
        "grpc-encoding", "grpc-accept-encoding", "authorization", "identity", "accept-encoding",
        "application/grpc+proto", "identity,deflate,gzip", "grpc-message-type", "content-length",
    ].map { (Array($0.utf8), $0) }

    static func string(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> String {
        let bytes = UnsafeBufferPointer(start: pointer, count: count)
        for entry in known where entry.bytes.count == count && entry.bytes.elementsEqual(bytes) {
            return entry.string
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
