import EntitlementAPI
import Foundation
import ProtobufWire
import XCTest

/// Each enum's name table matches its .proto: a table out of order would name every later value
/// wrongly in logs and entitlementctl's output without failing any round trip.
final class EnumNameTests: XCTestCase {
    private static let protos = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Protos").standardized

    /// The `NAME = number;` lines of `enum name { ... }` in the .proto at `path`.
    private func protoValues(_ name: String, in path: String) throws -> [Int32: String] {
        let text = try String(contentsOf: Self.protos.appendingPathComponent(path), encoding: .utf8)
        let body = try XCTUnwrap(text.components(separatedBy: "enum \(name) {").dropFirst().first)
            .prefix { $0 != "}" }
        var values: [Int32: String] = [:]
        for line in body.split(separator: "\n") {
            let parts = line.split(whereSeparator: { " =;".contains($0) })
            if parts.count == 2, !parts[0].hasPrefix("//"), let number = Int32(parts[1]) {
                values[number] = String(parts[0])
            }
        }
        return values
    }

    private func assertNames<Enum: ProtobufNamedEnum>(
        _: Enum.Type, _ name: String, in path: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let expected = try protoValues(name, in: path)
        XCTAssertFalse(expected.isEmpty, "no values of \(name) in \(path)", file: file, line: line)
        let described = Dictionary(uniqueKeysWithValues: expected.keys.map { ($0, "\(Enum(rawValue: $0))") })
        XCTAssertEqual(described, expected, file: file, line: line)
        XCTAssertEqual(Enum.protoNames.count, expected.count, file: file, line: line)
    }

    func testNamesMatchTheProtos() throws {
        let entitlement = "entitlement/v1/entitlement.proto"
        try assertNames(EntitlementV1.EntitlementState.self, "EntitlementState", in: entitlement)
        try assertNames(EntitlementV1.Environment.self, "Environment", in: entitlement)
        try assertNames(EntitlementV1.EventSource.self, "EventSource", in: entitlement)
        try assertNames(EntitlementV1.EventType.self, "EventType", in: entitlement)
        try assertNames(EntitlementV1.ProductType.self, "ProductType", in: entitlement)
        try assertNames(GRPCHealthV1.HealthCheckResponse.ServingStatus.self, "ServingStatus",
                        in: "grpc/health/v1/health.proto")
    }

    /// A number this build does not know is named by its type and number, never as a known value.
    func testUnknownNumbersNameTheirType() {
        XCTAssertEqual("\(EntitlementV1.EventType(rawValue: 20))", "EventType(20)")
        XCTAssertEqual("\(EntitlementV1.EventSource(rawValue: -1))", "EventSource(-1)")
        XCTAssertEqual("\(GRPCHealthV1.HealthCheckResponse.ServingStatus(rawValue: 4))", "ServingStatus(4)")
    }
}
