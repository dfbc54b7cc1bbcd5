import HTTPCore
import Synchronization

/// Apple's verifyReceipt with zero latency: every POST to /production/verifyReceipt or
/// /sandbox/verifyReceipt gets the sample (status 0) at once, on the loop thread.
///
/// `distinct`: each receipt gets its own transactions. Receipts are told apart by the first
/// bytes of their receipt-data (the benchmark's receipts differ there); the n-th receipt seen
/// has every id shifted by n * 10^9, so ids never collide and a receipt sent again gets the
/// same ids. `GET /calls` answers how many verifyReceipt calls were served, `GET /api-calls`
/// how many App Store Server API requests (``ServerAPIFake``, with --server-api).
final class FakeAppleService: HTTPService {
    static let keyBytes = 64
    static let idStride: UInt64 = 1_000_000_000

    let template: SampleTemplate
    let distinct: Bool
    let offsets = Mutex<[[UInt8]: UInt64]>([:])
    let calls = Atomic<Int>(0)
    let apiCalls = Atomic<Int>(0)
    let serverAPI: ServerAPIFake?

    init(template: SampleTemplate, distinct: Bool, serverAPI: ServerAPIFake? = nil) {
        self.template = template
        self.distinct = distinct
        self.serverAPI = serverAPI
    }

    func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        let path = request.pathWithoutQuery
        if request.method == "GET", path == "/calls" {
            writer.respond(.text(200, "\(calls.load(ordering: .relaxed))\n"))
            return
        }
        if request.method == "GET", path == "/api-calls" {
            writer.respond(.text(200, "\(apiCalls.load(ordering: .relaxed))\n"))
            return
        }
        if request.method == "GET", let serverAPI, let answer = serverAPI.answer(String(path)) {
            apiCalls.add(1, ordering: .relaxed)
            writer.respond(answer)
            return
        }
        guard request.method == "POST", path == "/production/verifyReceipt" || path == "/sandbox/verifyReceipt" else {
            writer.respond(.text(404, "not found\n"))
            return
        }
        calls.add(1, ordering: .relaxed)
        let offset = distinct ? offset(for: FakeAppleService.receiptKey(request.body)) : 0
        writer.respond(HTTPResponse(status: 200, headers: ["content-type": "application/json"],
                                    body: template.body(offset: offset)))
    }

    func offset(for key: [UInt8]) -> UInt64 {
        offsets.withLock { table in
            if let known = table[key] { return known }
            let next = UInt64(table.count + 1) * FakeAppleService.idStride
            table[key] = next
            return next
        }
    }

    /// The first ``keyBytes`` bytes of the receipt-data string in `{"receipt-data":"...",...}`.
    static func receiptKey(_ body: [UInt8]) -> [UInt8] {
        let marker = Array("\"receipt-data\":\"".utf8)
        guard body.count >= marker.count else { return [] }
        var i = 0
        while i + marker.count <= body.count {
            if body[i] == marker[0], body[i..<(i + marker.count)].elementsEqual(marker) {
                let start = i + marker.count
                return Array(body[start..<min(body.count, start + keyBytes)])
            }
            i += 1
        }
        return []
    }
}
