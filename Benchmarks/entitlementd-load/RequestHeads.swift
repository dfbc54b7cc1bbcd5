import HTTP2
import HTTPCore

/// The request heads the load sends: the header fields h2load sends with load.sh's flags
/// (`-d BODY -H 'content-type: application/grpc' -H 'te: trailers'`), so the cross-check
/// against h2load compares the same requests.
///
/// h2load adds a `user-agent` and a `content-length` matching its body, and names the target
/// as `:authority`. Without the two extra fields each call cost the server ~2.5k (6 %) fewer
/// instructions (callgrind, single user, 4x32: 38.2k vs 40.8k per call under h2load), which
/// was part of why this driver measured 15 % more req/s than h2load on the same server.
/// A body's length varies with the user id's digits, so there is one head per length.
struct RequestHeads {
    private let byLength: [HTTP2RequestHead?]

    init(authority: String, path: String, bodyLengths: some Sequence<Int>) {
        var byLength: [HTTP2RequestHead?] = []
        for length in Set(bodyLengths) {
            if byLength.count <= length { byLength += Array(repeating: nil, count: length + 1 - byLength.count) }
            byLength[length] = HTTP2RequestHead(
                method: "POST", authority: authority, path: path,
                headers: ["user-agent": "entitlementd-load", "content-type": "application/grpc", "te": "trailers",
                          "content-length": String(length)])
        }
        self.byLength = byLength
    }

    /// The head for a body of `length` bytes, one of the lengths given at init.
    func head(forBodyLength length: Int) -> HTTP2RequestHead {
        byLength[length]!
    }
}
