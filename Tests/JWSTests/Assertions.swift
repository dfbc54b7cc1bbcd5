import JWS
import XCTest

/// Asserts that `body` throws a ``JWSError`` with `code` (and, when given, `certificate`).
func assertRejects<T>(
    _ code: JWSError.Code, certificate: JWSError.CertificatePosition? = nil,
    file: StaticString = #filePath, line: UInt = #line, _ body: () throws(JWSError) -> T
) {
    do {
        _ = try body()
        XCTFail("accepted; expected \(code)", file: file, line: line)
    } catch {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        if let certificate {
            XCTAssertEqual(error.certificate, certificate, "\(error)", file: file, line: line)
        }
        XCTAssertFalse(error.message.isEmpty, file: file, line: line)
    }
}
