import HTTPCore
import RPCCore
import ServiceRuntime

/// The actions: grant, revoke, refresh. Each a POST with the session's CSRF token and a
/// reason, allowed to support and admin only, done through the same handlers as the RPCs (which
/// record the actor and reason in history and the log).
extension Console {
    func act(_ request: HTTPRequest, path: String, session: ConsoleSession) async -> HTTPResponse {
        let actions: Set<String> = ["/console/customer/grant", "/console/customer/revoke", "/console/customer/refresh"]
        guard actions.contains(path) else {
            return refusal(404, "There is no console action at this address.", session: session)
        }
        guard ConsoleAccess.mayAct(session.principal) else {
            logger?.warning("console action refused: role", [("actor", session.principal.actor), ("path", path)])
            return refusal(403, Principal.refusal(session.principal, needs: ConsoleAccess.actors), session: session)
        }
        if let refused = csrfRefusal(request, session: session) { return refused }
        let form = FormFields(body: request.body)
        guard let userID = form["user"], !userID.isEmpty else {
            return refusal(400, "The form names no customer: open the customer's page and use its form.",
                           session: session)
        }
        let back = ConsoleViews.Link(title: "Back to \(userID)", path: ConsoleText.customerPath(userID))
        let reason = String((form["reason"] ?? "").trimmingWhitespace)
        guard !reason.isEmpty else {
            return refusal(400, "Give a reason: history shows it next to your name.", session: session, back: back)
        }
        let caller = session.principal
        do {
            switch path {
            case "/console/customer/grant":
                guard let expires = ExpiryInput.milliseconds(form["expires"] ?? "", now: WallClock.unixMilliseconds())
                else {
                    return refusal(400, "Expires must be a span from now (30d, 12h, 90m) or a UTC date or time "
                                   + "(2027-01-31, 2027-01-31T12:00Z).", session: session, back: back)
                }
                let grantID = try await desk.grant(userID: userID, entitlementID: form["entitlement"] ?? "",
                                                   expiresAtMs: expires, reason: reason, by: caller)
                return done(userID, "granted", grantID)
            case "/console/customer/revoke":
                let grantID = form["grant"] ?? ""
                try await desk.revokeGrant(userID: userID, grantID: grantID, reason: reason, by: caller)
                return done(userID, "revoked", grantID)
            default:
                let count = try await desk.refresh(userID: userID, reason: reason, by: caller)
                return done(userID, "refreshed", String(count))
            }
        } catch {
            let what = path.split(separator: "/").last.map(String.init) ?? "act"
            return failure(error, doing: what, session: session, back: back)
        }
    }

    private func done(_ userID: String, _ what: String, _ detail: String) -> HTTPResponse {
        ConsoleResponses.redirect(ConsoleText.customerPath(userID) + "&done=\(what)&detail="
                                  + FormFields.encode(detail))
    }
}
