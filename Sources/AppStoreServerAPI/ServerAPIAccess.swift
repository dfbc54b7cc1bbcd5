import JWS

/// What every request to Apple's Server API shares: the bearer token in use and the request
/// rate (``TokenBucket``).
///
/// An actor so that state has one owner, changed only in short steps that never block: signing
/// a token (an ECDSA operation) runs off the actor while it serves other callers, and the wait
/// the rate asks for is the caller's own `Task.sleep`. Each request costs two hops here, which
/// are microseconds beside the HTTPS exchange with Apple they precede.
///
/// Tokens are short-lived on purpose (``lifetimeSeconds``, 20 minutes by default): a token that
/// leaks from a log or a proxy is useful for minutes, not the hour Apple would allow.
actor ServerAPIAccess {
    /// Signs the token for `claims`; async so it runs off the actor (a synchronous closure
    /// called here would hold it for the whole signature).
    typealias Mint = @Sendable (AuthorizationClaims) async throws -> String

    struct Issued: Sendable {
        var token: String
        var expiresAtSeconds: Int64
    }

    nonisolated let credentials: ServerAPICredentials
    nonisolated let lifetimeSeconds: Int64
    /// A token with less than this left is replaced, so none expires in flight or in a retry.
    nonisolated let renewBeforeSeconds: Int64
    private let mint: Mint
    /// Monotonic nanoseconds for the bucket; injectable so tests fix the instant.
    private let nowNs: @Sendable () -> Int64
    private var bucket: TokenBucket
    private var issued: Issued?
    /// Callers waiting for the token being signed; nil while none is being signed.
    private var waitingForMint: [CheckedContinuation<String, any Error>]?
    /// Tokens signed so far, failures included, for tests and the cost they measure.
    private(set) var mintCount = 0

    init(credentials: ServerAPICredentials, requestsPerSecond: Double, lifetimeSeconds: Int64 = 1200,
         renewBeforeSeconds: Int64 = 300, nowNs: @escaping @Sendable () -> Int64, mint: Mint? = nil) {
        self.credentials = credentials
        self.lifetimeSeconds = lifetimeSeconds
        self.renewBeforeSeconds = min(renewBeforeSeconds, lifetimeSeconds / 2)
        self.nowNs = nowNs
        self.bucket = TokenBucket(rate: requestsPerSecond, nowNs: nowNs())
        self.mint = mint ?? { claims in
            try credentials.key.signCompact(header: claims.headerJSON, payload: claims.payloadJSON)
        }
    }

    /// The token to send at `nowMs`: the cached one, or a new one when it is near expiry or
    /// was refused. Only the first caller needing a new one signs it; the others wait for it.
    func token(nowMs: Int64) async throws -> String {
        let now = nowMs / 1000
        if let issued, issued.expiresAtSeconds - now > renewBeforeSeconds { return issued.token }
        if waitingForMint != nil {
            return try await withCheckedThrowingContinuation { waitingForMint?.append($0) }
        }
        waitingForMint = []
        let claims = AuthorizationClaims(keyID: credentials.keyID, issuerID: credentials.issuerID,
                                         bundleID: credentials.bundleID, issuedAtSeconds: now,
                                         lifetimeSeconds: lifetimeSeconds)
        let result: Result<String, any Error>
        do { result = .success(try await mint(claims)) } catch { result = .failure(error) }
        mintCount += 1
        if case .success(let token) = result {
            issued = Issued(token: token, expiresAtSeconds: claims.expiresAtSeconds)
        }
        let waiters = waitingForMint ?? []
        waitingForMint = nil
        for waiter in waiters { waiter.resume(with: result) }
        return try result.get()
    }

    /// Callers waiting for the token being signed now, for tests.
    var callersWaitingForMint: Int { waitingForMint?.count ?? 0 }

    /// Forgets `token` after Apple refused it (401), so the next request signs a new one;
    /// a newer token already in place stays.
    func refused(_ token: String) {
        if issued?.token == token { issued = nil }
    }

    /// Takes the next request's place at the configured rate; returns how long to wait first.
    func reserveRequest() -> Duration {
        .nanoseconds(bucket.reserve(atNs: nowNs()))
    }

    /// Gives back a place that was not used (the caller's deadline came first).
    func cancelReservation() {
        bucket.cancelReservation()
    }
}
