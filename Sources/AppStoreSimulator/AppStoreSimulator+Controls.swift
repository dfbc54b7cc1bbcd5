import Foundation
import HTTPCore

/// The whole simulator as one HTTP service: the Server API's parameterised paths first, then
/// the exact-path router (verifyReceipt and the control API).
public struct AppStoreSimulatorService: HTTPService {
    let simulator: AppStoreSimulator
    let router: HTTPRouter

    public func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        if request.headerLimitExceeded || !simulator.serveServerAPI(request, writer: writer) {
            router.handle(request, writer: writer)
        }
    }
}

extension AppStoreSimulator {
    /// Everything the simulator serves; what `appstore-sim serve` listens with.
    public func service() -> AppStoreSimulatorService {
        AppStoreSimulatorService(simulator: self, router: router())
    }

    /// Fault injection: dropped webhook deliveries, and 429/5xx for the next Server API requests.
    func addFaultControls(to router: inout HTTPRouter) {
        // {"drop": "all" | "none" | N}: which webhook deliveries never get posted from now on.
        router.add("POST", "/control/drop-webhooks") { [self] request, writer in
            answer(writer) { () throws(SimulatorError) in
                let text = try ControlRequest(request.body).requiredString("drop")
                guard let policy = WebhookDropPolicy(text: text) else {
                    throw SimulatorError(.invalidArgument, "drop must be all, none, or N (drop every Nth delivery)")
                }
                guard let delivery else {
                    throw SimulatorError(.conflict, "the simulator has no --webhook-url: nothing is delivered")
                }
                delivery.dropPolicy = policy
                return ["drop": policy.description]
            }
        }
        // {"status": 400|429|5xx, "count": N, "retry_after_ms": M, "error_code": C}: the next N
        // authenticated Server API requests answer this instead (count 0 disarms).
        router.add("POST", "/control/api-fault") { [self] request, writer in
            answer(writer) { () throws(SimulatorError) in
                let fields = try ControlRequest(request.body)
                let status = Int(try fields.string("status") ?? "429") ?? 0
                let count = Int(try fields.string("count") ?? "1") ?? -1
                guard status == 400 || status == 429 || (500...599).contains(status), count >= 0 else {
                    throw SimulatorError(.invalidArgument, "status must be 400, 429 or 5xx and count a whole number")
                }
                var error: ServerAPIErrorAnswer = status == 429 ? .rateLimitExceeded
                    : status == 400 ? .generalBadRequest : .generalInternal
                error.httpStatus = status
                if let code = try fields.string("error_code") {
                    guard let parsed = Int(code) else {
                        throw SimulatorError(.invalidArgument, "error_code is a number")
                    }
                    error.errorCode = parsed
                }
                let retryAfter = try fields.durationMs("retry_after") ?? (status == 429 ? 1000 : nil)
                apiFaults.withLock {
                    $0.arm(.init(error: error, retryAfterMs: status == 429 ? retryAfter : nil), count: count)
                }
                return ["status": status, "count": count, "error_code": error.errorCode]
            }
        }
        // The consumption answers received, by transaction id, each body as sent.
        router.add("GET", "/control/consumption-answers") { [self] _, writer in
            let answers = consumptionAnswers.withLock { $0 }
            writer.respond(Self.json(200, ["answers": answers.mapValues { bodies in
                bodies.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) ?? $0 }
            }]))
        }
        // How many Server API requests were served, by "METHOD endpoint environment status".
        router.add("GET", "/control/api-requests") { [self] _, writer in
            let (total, tally, armed) = apiFaults.withLock { ($0.total, $0.tally, $0.remaining) }
            writer.respond(Self.json(200, ["total": total, "requests": tally, "faults_armed": armed]))
        }
    }
}
