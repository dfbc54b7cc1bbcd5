import HTTPCore
import RPCCore
import Testing
@testable import Console

/// The console's routes over an in-memory desk: sign-in, roles, CSRF, cookies and headers.
@Suite struct ConsoleRouteTests {
    static let grantBody = "user=u1&entitlement=pro&expires=7d&reason=goodwill"

    @Test(arguments: [
        // token, may sign in, may act
        ("viewer-token", true, false),
        ("support-token", true, true),
        ("admin-token", true, true),
        ("legacy-token", true, true),
        ("rpc-token", false, false),
    ])
    func rolesDecideSignInAndActions(_ token: String, _ maySignIn: Bool, _ mayAct: Bool) async throws {
        let harness = try ConsoleHarness()
        guard maySignIn else {
            let refused = try await harness.send("POST", "/console/sign-in", body: "token=" + token)
            #expect(refused.status == 403)
            #expect(refused.headers["set-cookie"] == nil)
            return
        }
        let (cookie, csrf) = try await harness.signIn(token)
        let page = try await harness.send("GET", "/console/customer?user=u1", headers: cookie)
        #expect(page.status == 200)
        #expect(page.text.contains("<caption>Entitlements</caption>"))
        #expect(page.text.contains(">Grant</button>") == mayAct)
        #expect(page.text.contains(">Revoke</button>") == mayAct)
        #expect(page.text.contains(">Refresh from Apple</button>") == mayAct)
        let grant = try await harness.send("POST", "/console/customer/grant",
                                           body: Self.grantBody + "&csrf=" + csrf, headers: cookie)
        #expect(grant.status == (mayAct ? 303 : 403))
        #expect(harness.desk.actions.withLock { $0.count } == (mayAct ? 1 : 0))
    }

    @Test(arguments: [
        // what the form carries, and whether it passes
        ("right", 303),
        ("missing", 403),
        ("empty", 403),
        ("wrong", 403),
        ("another session's", 403),
    ])
    func everyActionNeedsTheSessionsCSRFToken(_ csrfCase: String, _ status: Int) async throws {
        let harness = try ConsoleHarness()
        let (cookie, csrf) = try await harness.signIn("support-token")
        let (_, otherCSRF) = try await harness.signIn("admin-token")
        let field = switch csrfCase {
        case "right": "&csrf=" + csrf
        case "missing": ""
        case "empty": "&csrf="
        case "wrong": "&csrf=" + String(csrf.reversed())
        default: "&csrf=" + otherCSRF
        }
        for (path, body) in [("/console/customer/grant", Self.grantBody),
                             ("/console/customer/revoke", "user=u1&grant=g0001&reason=mistake"),
                             ("/console/customer/refresh", "user=u1&reason=missing+renewal")] {
            let response = try await harness.send("POST", path, body: body + field, headers: cookie)
            #expect(response.status == status, "\(path) with \(csrfCase) token")
        }
        #expect(harness.desk.actions.withLock { $0.count } == (status == 303 ? 3 : 0))
        if status == 303 {
            #expect(harness.desk.actions.withLock { $0 } == [
                "grant u1 pro by sam: goodwill", "revoke u1 g0001 by sam: mistake",
                "refresh u1 by sam: missing renewal",
            ])
        }
    }

    @Test(arguments: [
        // headers a browser adds, and whether the POST passes
        (["origin": "http://admin.local:9090", "host": "admin.local:9090"], 303),
        (["origin": "https://evil.example", "host": "admin.local:9090"], 403),
        (["origin": "null", "host": "admin.local:9090"], 403),
        (["origin": "http://admin.local:9091", "host": "admin.local:9090"], 403),
        (["origin": "https://console.example", "host": "127.0.0.1:9090"], 403),
        (["origin": "https://console.example", "host": "127.0.0.1:9090", "x-forwarded-host": "console.example"], 403),
        (["sec-fetch-site": "cross-site"], 403),
        (["sec-fetch-site": "same-site"], 403),
        (["sec-fetch-site": "same-origin"], 303),
        // A proxy that rewrites Host: the browser's own word decides.
        (["sec-fetch-site": "same-origin", "origin": "https://console.example", "host": "127.0.0.1:9090"], 303),
    ])
    func aPostFromAnotherSiteIsRefusedEvenWithTheToken(_ headers: [String: String], _ status: Int) async throws {
        try await post(headers, trusting: false, expect: status)
    }

    @Test(arguments: [
        (["origin": "https://console.example", "host": "127.0.0.1:9090", "x-forwarded-host": "console.example"], 303),
        (["origin": "https://evil.example", "host": "127.0.0.1:9090", "x-forwarded-host": "console.example"], 403),
    ])
    func behindATrustedProxyTheForwardedHostIsThisHost(_ headers: [String: String], _ status: Int) async throws {
        try await post(headers, trusting: true, expect: status)
    }

    func post(_ headers: [String: String], trusting: Bool, expect status: Int) async throws {
        let harness = try ConsoleHarness(trustForwardedHeaders: trusting)
        let (cookie, csrf) = try await harness.signIn("admin-token")
        var sent = cookie
        for (name, value) in headers { sent.add(name: name, value: value) }
        let response = try await harness.send("POST", "/console/customer/grant",
                                              body: Self.grantBody + "&csrf=" + csrf, headers: sent)
        #expect(response.status == status)
    }

    @Test func anActionNeedsAReason() async throws {
        let harness = try ConsoleHarness()
        let (cookie, csrf) = try await harness.signIn("admin-token")
        let response = try await harness.send("POST", "/console/customer/grant",
                                              body: "user=u1&entitlement=pro&expires=7d&reason=+&csrf=" + csrf,
                                              headers: cookie)
        #expect(response.status == 400)
        #expect(harness.desk.actions.withLock { $0.isEmpty })
    }

    @Test func theDesksRefusalIsShownWithItsStatus() async throws {
        let harness = try ConsoleHarness()
        let (cookie, csrf) = try await harness.signIn("admin-token")
        let response = try await harness.send("POST", "/console/customer/grant",
                                              body: "user=u1&entitlement=&expires=7d&reason=r&csrf=" + csrf,
                                              headers: cookie)
        #expect(response.status == 400)
        #expect(response.text.contains("entitlement_id is required"))
    }

    @Test func withoutASessionPagesRedirectToSignInAndPostsAreRefused() async throws {
        let harness = try ConsoleHarness()
        let home = try await harness.send("GET", "/console/")
        #expect(home.status == 200)
        #expect(home.text.contains("<label for=\"token\">Token</label>"))
        let page = try await harness.send("GET", "/console/customer?user=u1")
        #expect(page.status == 303)
        #expect(page.headers["location"] == "/console/")
        let post = try await harness.send("POST", "/console/customer/grant", body: Self.grantBody,
                                          headers: ["cookie": "console_session=forged"])
        #expect(post.status == 403)
        #expect(harness.desk.actions.withLock { $0.isEmpty })
    }

    @Test func aWrongTokenIsRefusedAndRepeatedFailuresAreThrottled() async throws {
        let harness = try ConsoleHarness()
        for _ in 0..<3 {
            let wrong = try await harness.send("POST", "/console/sign-in", body: "token=guess")
            #expect(wrong.status == 401)
        }
        // Throttled now: even the right token gets no answer about itself.
        let throttled = try await harness.send("POST", "/console/sign-in", body: "token=admin-token")
        #expect(throttled.status == 429)
        #expect(throttled.headers["retry-after"] == "60")
        harness.clock.advance(60_000)
        _ = try await harness.signIn("admin-token")
    }

    @Test func signOutEndsTheSessionOnTheServer() async throws {
        let harness = try ConsoleHarness()
        let (cookie, csrf) = try await harness.signIn("viewer-token")
        let withoutToken = try await harness.send("POST", "/console/sign-out", headers: cookie)
        #expect(withoutToken.status == 403)
        let out = try await harness.send("POST", "/console/sign-out", body: "csrf=" + csrf, headers: cookie)
        #expect(out.status == 303)
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        let after = try await harness.send("GET", "/console/customer?user=u1", headers: cookie)
        #expect(after.status == 303)
    }

    @Test func aSessionFollowsTheTokensFileAsItIsReloaded() async throws {
        let harness = try ConsoleHarness()
        let (cookie, csrf) = try await harness.signIn("support-token")
        let authenticator = try #require(harness.console.authenticator)
        // Demoted to viewer: the open session loses its actions at once.
        try authenticator.replace(fileContents: "support-token name=sam roles=viewer\nadmin-token name=ada")
        let page = try await harness.send("GET", "/console/customer?user=u1", headers: cookie)
        #expect(page.status == 200)
        #expect(!page.text.contains(">Grant</button>"))
        let grant = try await harness.send("POST", "/console/customer/grant",
                                           body: Self.grantBody + "&csrf=" + csrf, headers: cookie)
        #expect(grant.status == 403)
        // Removed: the session ends.
        try authenticator.replace(fileContents: "admin-token name=ada")
        let after = try await harness.send("GET", "/console/customer?user=u1", headers: cookie)
        #expect(after.status == 303)
        #expect(harness.desk.actions.withLock { $0.isEmpty })
    }

    @Test(arguments: [
        // trusts forwarded headers, X-Forwarded-Proto, cookie is Secure
        (false, "https", false),
        (true, "https", true),
        (true, "http", false),
        (true, "https, http", true),
        (true, nil as String?, false),
    ])
    func theCookieIsSecureOnlyBehindATrustedTLSProxy(_ trusts: Bool, _ proto: String?, _ secure: Bool) async throws {
        let harness = try ConsoleHarness(trustForwardedHeaders: trusts)
        var headers = HTTPHeaders()
        if let proto { headers.add(name: "x-forwarded-proto", value: proto) }
        let response = try await harness.send("POST", "/console/sign-in", body: "token=viewer-token", headers: headers)
        let cookie = try #require(response.headers["set-cookie"])
        #expect(cookie.contains("; HttpOnly"))
        #expect(cookie.contains("; SameSite=Strict"))
        #expect(cookie.contains("; Path=/console"))
        #expect(cookie.contains("; Max-Age=3600"))
        #expect(cookie.hasSuffix("; Secure") == secure)
    }

    @Test(arguments: ["/console/", "/console/console.css", "/console/customer?user=u1", "/console/nowhere"])
    func everyResponseForbidsFramingAndScript(_ path: String) async throws {
        let harness = try ConsoleHarness()
        let (cookie, _) = try await harness.signIn("viewer-token")
        let response = try await harness.send("GET", path, headers: cookie)
        let policy = try #require(response.headers["content-security-policy"])
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(!policy.contains("unsafe-inline"))
        #expect(response.headers["x-frame-options"] == "DENY")
        #expect(response.headers["x-content-type-options"] == "nosniff")
        #expect(!response.text.contains("<script"))
        #expect(!response.text.contains("style=\""))
    }

    @Test(arguments: [
        ("/console", true), ("/console/", true), ("/console/customer", true), ("/console/console.css", true),
        ("/consoles", false), ("/console-x", false), ("/metrics", false), ("/admin/owners", false), ("/", false),
    ])
    func theAdminListenerSendsOnlyConsolePathsHere(_ path: String, _ served: Bool) {
        #expect(Console.serves(path: path) == served)
    }

    @Test func aRegisteredPageFillsTheDashboardSlot() async throws {
        var harness = try ConsoleHarness()
        let (cookie, _) = try await harness.signIn("viewer-token")
        let placeholder = try await harness.send("GET", "/console/dashboard", headers: cookie)
        #expect(placeholder.status == 200)
        #expect(placeholder.text.contains("<a href=\"/console/dashboard\">Dashboard</a>"))
        var console = harness.console
        console.addPage(ConsolePage(path: "/console/dashboard", navigationTitle: "Dashboard") { request in
            .page(title: "Dashboard", body: "<h1>Charts for \(request.principal.actor)</h1>")
        })
        console.addPage(ConsolePage(path: "/console/dashboard.csv", navigationTitle: nil) { _ in
            .response(.text(200, "day,active\n", contentType: "text/csv"))
        })
        harness = harness.replacing(console)
        let page = try await harness.send("GET", "/console/dashboard", headers: cookie)
        #expect(page.text.contains("<h1>Charts for vera</h1>"))
        #expect(page.text.components(separatedBy: ">Dashboard</a>").count == 2)
        let csv = try await harness.send("GET", "/console/dashboard.csv", headers: cookie)
        #expect(csv.text == "day,active\n")
        #expect(csv.headers["content-security-policy"] != nil)
    }
}
