import Testing
@testable import Console

/// The one escaping boundary: every string a view interpolates reaches the browser as text.
@Suite struct EscapingTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ("a & b", "a &amp; b"),
        (#"" onmouseover="x"#, "&quot; onmouseover=&quot;x"),
        ("it's", "it&#39;s"),
        ("&lt;", "&amp;lt;"),
        ("ünïcode ✓", "ünïcode ✓"),
    ])
    func escapes(_ input: String, _ expected: String) {
        #expect(HTML.escape(input) == expected)
    }

    @Test func interpolatedStringsAreEscapedAndMarkupIsNot() {
        let userID = "<img src=x onerror=alert(1)>"
        let inner: HTML = "<em>kept</em>"
        let html: HTML = "<h1>\(userID)</h1>\(inner)<a href=\"/x?u=\(userID)\">"
        #expect(html.rendered == "<h1>&lt;img src=x onerror=alert(1)&gt;</h1><em>kept</em>"
                + "<a href=\"/x?u=&lt;img src=x onerror=alert(1)&gt;\">")
    }

    @Test func customerPageShowsHostileValuesAsText() {
        let hostile = "<script>alert(1)</script>"
        var record = CustomerRecord(userID: hostile)
        record.appAccountToken = "\"><b>"
        record.ownershipEvents = [OwnershipEvent(kind: .lostTo, originalTransactionID: "1", otherUserID: hostile,
                                                 occurredAtMs: 1)]
        let page = CustomerView(record: record, canAct: true, csrfToken: "t", notice: nil, showsOlderHistory: false)
            .render().rendered
        #expect(!page.contains("<script>"))
        #expect(!page.contains("\"><b>"))
        #expect(page.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"))
        // In a link the id is percent-encoded, then escaped: no quote can end the attribute.
        #expect(page.contains("/console/customer?user=%3Cscript%3Ealert%281%29%3C%2Fscript%3E"))
    }

    @Test(arguments: [
        ("a=1&b=two+words", ["a": "1", "b": "two words"]),
        ("q=%3Cimg%20src%3Dx%3E", ["q": "<img src=x>"]),
        ("csrf=&token=abc", ["csrf": "", "token": "abc"]),
        ("a=1&a=2", ["a": "1"]),
        ("bad=%zz%4", ["bad": "%zz%4"]),
        ("utf=%C3%BC", ["utf": "ü"]),
    ])
    func formFields(_ encoded: String, _ expected: [String: String]) {
        #expect(FormFields(encoded).values == expected)
    }

    @Test(arguments: ["u1", "<img src=x onerror=alert(1)>", "a&b=c d+e", "ünï/?#"])
    func encodingRoundTrips(_ value: String) {
        let encoded = FormFields.encode(value)
        #expect(encoded.allSatisfy { $0.isLetter || $0.isNumber || "-._~%".contains($0) })
        #expect(FormFields("v=" + encoded)["v"] == value)
    }
}
