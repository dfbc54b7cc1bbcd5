import RPCCore
import XCTest

/// Issue 16: nothing in a tokens file that is blank once trimmed may ever authenticate.
final class BearerTokenBlankLineTests: XCTestCase {
    func testBlankAndCommentOnlyFilesHoldNoTokens() throws {
        for contents in ["", "\n", "   \n\t\n\r\n", "# nothing yet\n\n#\n", " # indented comment \n"] {
            let auth = try BearerTokenAuthenticator(fileContents: contents)
            XCTAssertEqual(auth.tokenCount, 0, "file \(contents.debugDescription)")
            for presented in ["Bearer ", "Bearer  ", "Bearer \t", "Bearer \r", "Bearer #", "Bearer", ""] {
                XCTAssertFalse(auth.accepts(authorization: presented),
                               "\(presented.debugDescription) accepted by file \(contents.debugDescription)")
            }
        }
    }

    func testBlankLinesBesideATokenAddNothing() throws {
        let auth = try BearerTokenAuthenticator(fileContents: "\n  \nreal-token\n\t\n")
        XCTAssertEqual(auth.tokenCount, 1)
        XCTAssertTrue(auth.accepts(authorization: "Bearer real-token"))
        for presented in ["Bearer ", "Bearer  ", "Bearer \t"] {
            XCTAssertFalse(auth.accepts(authorization: presented), presented.debugDescription)
        }
    }
}
