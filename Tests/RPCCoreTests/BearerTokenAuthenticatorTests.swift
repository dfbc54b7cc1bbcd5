import RPCCore
import XCTest

final class BearerTokenAuthenticatorTests: XCTestCase {
    let file = """
    # callers allowed in production
    alpha-token

      beta-token  
    # retired: gamma-token
    """

    func testAcceptsListedTokensOnly() throws {
        let auth = try BearerTokenAuthenticator(fileContents: file)
        XCTAssertEqual(auth.tokenCount, 2)
        XCTAssertTrue(auth.accepts(authorization: "Bearer alpha-token"))
        XCTAssertTrue(auth.accepts(authorization: "bearer beta-token"))
        XCTAssertFalse(auth.accepts(authorization: "Bearer gamma-token"))
        XCTAssertFalse(auth.accepts(authorization: "Bearer # callers allowed in production"))
        XCTAssertFalse(auth.accepts(authorization: "Bearer alpha-toke"))
        XCTAssertFalse(auth.accepts(authorization: "Bearer alpha-tokenX"))
        XCTAssertFalse(auth.accepts(authorization: "alpha-token"))
        XCTAssertFalse(auth.accepts(authorization: "Bearer "))
        XCTAssertFalse(auth.accepts(authorization: nil))
    }

    func testReplaceSwapsTheSet() throws {
        let auth = try BearerTokenAuthenticator(fileContents: file)
        try auth.replace(fileContents: "delta\n")
        XCTAssertFalse(auth.accepts(authorization: "Bearer alpha-token"))
        XCTAssertTrue(auth.accepts(authorization: "Bearer delta"))
    }
}
