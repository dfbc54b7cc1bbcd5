import HTTPCore
import RPCCore

/// The search and customer pages.
extension Console {
    func search(_ term: String, session: ConsoleSession) async -> HTTPResponse {
        let term = String(term.trimmingWhitespace)
        guard !term.isEmpty else { return page("Search", ConsoleViews.home(), session: session) }
        do {
            let matches = try await desk.search(term)
            // One customer: straight to their page, as support staff expect from a lookup.
            if matches.count == 1 { return ConsoleResponses.redirect(ConsoleText.customerPath(matches[0].userID)) }
            return page("Search", ConsoleViews.searchResults(term: term, matches: matches,
                                                              searchesOrderIDs: searchesOrderIDs), session: session)
        } catch {
            return failure(error, doing: "search", session: session, back: nil)
        }
    }

    func customer(_ query: FormFields, session: ConsoleSession) async -> HTTPResponse {
        guard let userID = query["user"], !userID.isEmpty else {
            return refusal(400, "Say which customer: /console/customer?user=USER_ID, or use Search.",
                           session: session)
        }
        let historyPage = query["history"].flatMap { $0.isEmpty ? nil : $0 }
        do {
            let record = try await desk.customer(userID: userID, historyPage: historyPage)
            let view = CustomerView(record: record, canAct: ConsoleAccess.mayAct(session.principal),
                                    csrfToken: session.csrfToken, notice: Console.notice(query),
                                    showsOlderHistory: historyPage != nil)
            return page(userID, view.render(), session: session)
        } catch {
            return failure(error, doing: "read this customer", session: session, back: nil)
        }
    }

    /// The line an action's redirect asks the customer page to show; only the console's own
    /// words, with an id of plain letters and digits, so a crafted link cannot put text there.
    static func notice(_ query: FormFields) -> String? {
        let detail = query["detail"] ?? ""
        guard detail.count <= 40, detail.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        switch query["done"] {
        case "granted": return "Granted: grant \(detail)."
        case "revoked": return "Revoked grant \(detail)."
        case "refreshed": return "Refreshed from Apple: \(detail) new transaction\(detail == "1" ? "" : "s")."
        default: return nil
        }
    }

    /// An error page for a desk call that failed: the status the RPC's code stands for, and
    /// its message, which was written for the person who must act on it.
    func failure(_ error: any Error, doing what: String, session: ConsoleSession,
                 back: ConsoleViews.Link?) -> HTTPResponse {
        guard let rpcError = error as? RPCError else {
            logger?.error("console request failed", [("doing", what), ("error", "\(error)")])
            return refusal(500, "Could not \(what): an internal error (logged).", session: session, back: back)
        }
        let status: Int
        switch rpcError.code {
        case .invalidArgument, .outOfRange: status = 400
        case .notFound: status = 404
        case .permissionDenied, .unauthenticated: status = 403
        case .failedPrecondition, .alreadyExists, .aborted: status = 409
        case .unavailable, .resourceExhausted, .deadlineExceeded: status = 503
        case .unimplemented: status = 501
        default: status = 500
        }
        if status >= 500 { logger?.warning("console request failed", [("doing", what), ("error", "\(rpcError)")]) }
        return refusal(status, "Could not \(what): \(rpcError.message)", session: session, back: back)
    }
}
