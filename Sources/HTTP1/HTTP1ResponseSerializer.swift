import HTTPCore

/// Writes an ``HTTPResponse`` as HTTP/1.1 bytes: status line, headers, Content-Length, body.
///
/// Always Content-Length framing (bodies are whole in memory), never chunked; trailers are
/// dropped because nothing served over HTTP/1.1 here uses them.
public enum HTTP1ResponseSerializer {
    public static func serialize(_ response: HTTPResponse, keepAlive: Bool, into out: inout [UInt8]) {
        out.append(contentsOf: "HTTP/1.1 \(response.status) \(HTTPResponse.reasonPhrase(response.status))\r\n".utf8)
        for field in response.headers where field.name != "content-length" && field.name != "connection" {
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "content-length: \(response.body.count)\r\n".utf8)
        if !keepAlive { out.append(contentsOf: "connection: close\r\n".utf8) }
        out.append(contentsOf: "\r\n".utf8)
        out.append(contentsOf: response.body)
    }
}
