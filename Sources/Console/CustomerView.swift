import EntitlementAPI

/// The customer page: heading = the user id, then entitlements, actions, history, ownership
/// and webhook deliveries. Action forms appear only when ``canAct``.
struct CustomerView {
    var record: CustomerRecord
    var canAct: Bool
    var csrfToken: String
    /// A line about what the last action did (after its redirect), or nil.
    var notice: String?
    /// Whether this page shows a later history page (then a link back to the newest).
    var showsOlderHistory: Bool

    func render() -> HTML {
        let token: HTML = record.appAccountToken.map { "<code>\($0)</code>" }
            ?? #"<span class="muted">none issued yet</span>"#
        let noticeLine: HTML = notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" } ?? .empty
        return """
            \(ConsoleViews.searchForm())
            <h1>\(record.userID)</h1>
            \(noticeLine)
            <p>App account token: \(token)</p>
            \(entitlements())
            \(canAct ? actions() : .empty)
            \(history())
            \(ownership())
            \(deliveries())
            """
    }

    func entitlements() -> HTML {
        let columns = ["Product", "State", "Expires", "Auto-renew", "Trial", "Source", "Owner since", "Why"]
            + (canAct ? ["Action"] : [])
        return Self.table("Entitlements", columns: columns, rows: record.entitlements.map(entitlementRow),
                          whenEmpty: "No entitlements.")
    }

    func entitlementRow(_ row: EntitlementRow) -> HTML {
        let e = row.entitlement
        let state = ConsoleText.name(e.state, prefix: "ENTITLEMENT_STATE_")
        let isGrant = !e.grantID.isEmpty
        let product = isGrant ? e.entitlementID : ConsoleText.dash(e.productID)
        let source = isGrant
            ? "grant \(e.grantID)" : "App Store (" + ConsoleText.name(e.environment, prefix: "ENVIRONMENT_") + ")"
        var action = HTML.empty
        if canAct {
            action = isGrant && e.state != .revoked ? "<td>\(revokeForm(grantID: e.grantID))</td>" : "<td></td>"
        }
        return """
            <tr><td>\(product)</td><td class="state-\(state)">\(state)</td>\
            <td class="time">\(ConsoleText.time(e.expiresAtMs))</td>\
            <td>\(ConsoleText.yesNo(e.willAutoRenew))</td><td>\(ConsoleText.yesNo(e.isTrialPeriod))</td>\
            <td>\(source)</td><td class="time">\(ConsoleText.time(row.ownerSinceMs))</td>\
            <td class="why">\(row.explanation)</td>\
            \(action)</tr>
            """
    }

    func revokeForm(grantID: String) -> HTML {
        let id = "revoke-\(grantID)"
        return """
            <form class="inline" method="post" action="/console/customer/revoke">
            \(ConsoleViews.csrfField(csrfToken))
            <input type="hidden" name="user" value="\(record.userID)">
            <input type="hidden" name="grant" value="\(grantID)">
            <label class="visually-hidden" for="\(id)">Revoke reason</label>
            <input id="\(id)" name="reason" required placeholder="reason">
            <button type="submit">Revoke</button>
            </form>
            """
    }

    func actions() -> HTML {
        """
        <h2>Grant entitlement</h2>
        <form class="stacked" method="post" action="/console/customer/grant">
        \(ConsoleViews.csrfField(csrfToken))
        <input type="hidden" name="user" value="\(record.userID)">
        <label for="grant-entitlement">Entitlement</label>
        <input id="grant-entitlement" name="entitlement" required placeholder="entitlement id, e.g. pro">
        <label for="grant-expires">Expires</label>
        <input id="grant-expires" name="expires" required placeholder="30d, 12h, 2027-01-31 or 2027-01-31T12:00Z">
        <label for="grant-reason">Reason</label>
        <input id="grant-reason" name="reason" required placeholder="shown in history">
        <button type="submit">Grant</button>
        </form>
        <h2>Refresh from Apple</h2>
        <form class="stacked" method="post" action="/console/customer/refresh">
        \(ConsoleViews.csrfField(csrfToken))
        <input type="hidden" name="user" value="\(record.userID)">
        <label for="refresh-reason">Refresh reason</label>
        <input id="refresh-reason" name="reason" required placeholder="e.g. customer reports a missing renewal">
        <button type="submit">Refresh from Apple</button>
        </form>
        """
    }

    func history() -> HTML {
        let columns = ["Occurred", "Type", "Product", "Transaction", "Original transaction", "Expires", "Source",
                       "Apple type", "Actor", "Reason"]
        let rows = record.history.map { e -> HTML in
            let product = e.productID.isEmpty ? e.entitlementIDOrDash : e.productID
            return """
                <tr><td class="time">\(ConsoleText.time(e.occurredAtMs))</td>\
                <td>\(ConsoleText.name(e.type, prefix: "EVENT_TYPE_"))</td><td>\(product)</td>\
                <td>\(ConsoleText.dash(e.transactionID))</td><td>\(ConsoleText.dash(e.originalTransactionID))</td>\
                <td class="time">\(ConsoleText.time(e.expiresAtMs))</td>\
                <td>\(ConsoleText.name(e.source, prefix: "EVENT_SOURCE_"))</td>\
                <td>\(ConsoleText.dash(e.appleNotificationType))</td><td>\(ConsoleText.dash(e.actor))</td>\
                <td>\(ConsoleText.dash(e.reason))</td></tr>
                """
        }
        var paging: [HTML] = []
        if showsOlderHistory {
            paging.append("<a href=\"\(ConsoleText.customerPath(record.userID))\">Newest events</a>")
        }
        if !record.nextHistoryPage.isEmpty {
            let older = ConsoleText.customerPath(record.userID, historyPage: record.nextHistoryPage)
            paging.append("<a href=\"\(older)\">Older events</a>")
        }
        return """
            \(Self.table("History", columns: columns, rows: rows, whenEmpty: "No events."))
            <nav aria-label="History pages">\(paging)</nav>
            """
    }

    func ownership() -> HTML {
        guard !record.ownershipEvents.isEmpty else {
            return """
                <h2>Ownership</h2>
                <p class="muted">No chain was lost to another account, and no other account claimed one.</p>
                """
        }
        let rows = record.ownershipEvents.map { event -> HTML in
            let what = event.kind == .lostTo ? "lost to" : "claim refused from"
            let other = ConsoleText.customerPath(event.otherUserID)
            return """
                <tr><td class="time">\(ConsoleText.time(event.occurredAtMs))</td>\
                <td>\(event.originalTransactionID)</td>\
                <td>\(what)</td><td><a href="\(other)">\(event.otherUserID)</a></td></tr>
                """
        }
        return """
            <h2>Ownership</h2>
            \(Self.table("Chains lost and claims by others", columns: ["Occurred", "Chain", "What", "Other account"],
                         rows: rows, whenEmpty: nil))
            """
    }

    func deliveries() -> HTML {
        guard record.webhooksConfigured else {
            return """
                <h2>Webhooks</h2>
                <p class="muted">No webhook endpoint is configured (--webhook-url).</p>
                """
        }
        let rows = record.deliveries.map { row -> HTML in
            """
            <tr><td class="time">\(ConsoleText.time(row.occurredAtMs))</td><td>\(row.changeID)</td>\
            <td>\(row.subject)</td>\
            <td>\(row.state)</td><td>\(row.endpoint)</td><td>\(row.status)</td></tr>
            """
        }
        let columns = ["Occurred", "Change", "Entitlement", "State", "Endpoint", "Status"]
        return """
            <h2>Webhooks</h2>
            \(Self.table("Webhook deliveries", columns: columns, rows: rows, whenEmpty: "No changes."))
            """
    }

    /// One section's table, so every section captions its columns for screen readers alike;
    /// `whenEmpty` fills a row of its own when there are no rows (nil where the section is
    /// never shown empty).
    static func table(_ caption: String, columns: [String], rows: [HTML], whenEmpty: String?) -> HTML {
        let empty: HTML = rows.isEmpty
            ? whenEmpty.map { "<tr><td colspan=\"\(columns.count)\" class=\"muted\">\($0)</td></tr>" } ?? .empty
            : .empty
        return """
            <table>
            <caption>\(caption)</caption>
            <thead><tr>\(headerCells(columns))</tr></thead>
            <tbody>\(rows)\(empty)</tbody>
            </table>
            """
    }

    static func headerCells(_ titles: [String]) -> HTML {
        HTML.joined(titles.map { "<th scope=\"col\">\($0)</th>" })
    }
}

extension EntitlementV1.HistoryEvent {
    /// A grant's events carry no product: the chain id (`grant:<id>`) stands in the table.
    var entitlementIDOrDash: String { originalTransactionID.isEmpty ? "-" : originalTransactionID }
}
