import HTTPCore

/// The headers every console response carries, and the response shapes the routes use.
enum ConsoleResponses {
    /// No script may run at all (there is none), styles come only from the console's own
    /// stylesheet, forms post only here, and no other site may frame a page (clickjacking).
    static let contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add(name: "content-security-policy", value: contentSecurityPolicy)
        response.headers.add(name: "x-frame-options", value: "DENY")
        response.headers.add(name: "x-content-type-options", value: "nosniff")
        // Search terms and user ids ride in URLs: no other site learns them from a Referer. Not
        // no-referrer: browsers then send `Origin: null` on the console's own form posts, which
        // the cross-site check must refuse.
        response.headers.add(name: "referrer-policy", value: "same-origin")
        if response.headers["cache-control"] == nil {
            response.headers.add(name: "cache-control", value: "no-store")
        }
        return response
    }

    static func html(_ status: Int, _ document: HTML) -> HTTPResponse {
        secured(.text(status, document.rendered, contentType: "text/html; charset=utf-8"))
    }

    /// 303 See Other: after a POST the browser GETs `location`, so a reload never re-posts.
    static func redirect(_ location: String, cookie: String? = nil) -> HTTPResponse {
        var response = HTTPResponse.text(303, "see \(location)\n")
        response.headers.add(name: "location", value: location)
        if let cookie { response.headers.add(name: "set-cookie", value: cookie) }
        return secured(response)
    }

    static func stylesheet() -> HTTPResponse {
        var response = HTTPResponse.text(200, ConsoleStylesheet.css, contentType: "text/css; charset=utf-8")
        response.headers.add(name: "cache-control", value: "private, max-age=300")
        return secured(response)
    }
}
