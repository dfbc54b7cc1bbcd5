import AppStore
import XCTest

/// Asserts that `body` fails with `code`, naming `field`.
func assertFormatError<T>(
    _ code: AppStoreFormatError.Code, field: String, file: StaticString = #filePath, line: UInt = #line,
    _ parse: () throws(AppStoreFormatError) -> T
) {
    do {
        let value = try parse()
        XCTFail("expected \(code) at \(field), parsed \(value)", file: file, line: line)
    } catch {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        XCTAssertEqual(error.field, field, "\(error)", file: file, line: line)
        XCTAssertTrue(field.isEmpty || error.description.contains(field), file: file, line: line)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
