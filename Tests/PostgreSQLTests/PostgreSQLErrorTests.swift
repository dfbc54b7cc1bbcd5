import Testing
@testable import PostgreSQL

/// SQLSTATE classes decide whether the store retries, reports a conflict or a bug.
struct PostgreSQLErrorTests {
    static let cases: [(String?, PostgreSQLError.Kind)] = [
        ("08006", .connectionLost), ("08001", .connectionLost), ("57P01", .connectionLost),
        ("57P02", .connectionLost), ("57P03", .connectionLost),
        ("57014", .transient), ("40001", .transient), ("40P01", .transient), ("53300", .transient),
        ("53100", .transient), ("55P03", .transient),
        ("23505", .constraintViolation), ("23503", .constraintViolation), ("23502", .constraintViolation),
        ("42601", .other), ("42P01", .other), ("55000", .other), ("22P02", .other), (nil, .other), ("4", .other),
    ]

    @Test(arguments: cases)
    func classifies(_ sqlState: String?, _ kind: PostgreSQLError.Kind) {
        #expect(PostgreSQLError.kind(ofSQLState: sqlState) == kind)
    }

    @Test func transientIncludesALostConnection() {
        let lost = PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "gone")
        #expect(lost.isTransient && lost.isConnectionLost && !lost.isConstraintViolation)
        let unique = PostgreSQLError(kind: PostgreSQLError.kind(ofSQLState: "23505"), sqlState: "23505", message: "dup")
        #expect(!unique.isTransient && unique.isConstraintViolation)
        #expect(unique.description.contains("23505") && unique.description.contains("dup"))
    }

    @Test func aBadConnectionOutranksTheSQLState() {
        let error = PostgreSQLError(sqlState: "42601", message: "x", sql: nil, connectionIsBad: true)
        #expect(error.kind == .connectionLost)
    }
}
