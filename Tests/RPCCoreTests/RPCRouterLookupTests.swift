import ProtobufWire
import RPCCore
import XCTest

/// ``RPCRouter/route(forPath:)`` finds a method by length and bytes instead of hashing the path:
/// for every path it must answer exactly what the dictionary of methods answers (Swift's String
/// equality, canonical equivalence included), and hand back the router's own copy of the path.
final class RPCRouterLookupTests: XCTestCase {
    struct Empty: ProtobufMessage {
        init() {}
        init(protobufBytes: ArraySlice<UInt8>) throws {}
        func encode(to writer: inout ProtobufWriter) {}
    }

    static let registered = [
        "/entitlement.v1.EntitlementService/CheckEntitlement",
        "/entitlement.v1.EntitlementService/ListHistory",
        "/entitlement.v1.EntitlementService/SubmitReceipt",
        "/grpc.health.v1.Health/Check",
        "/a.B/Kelvin",  // a K: the KELVIN SIGN (3 bytes) spells the same string
        "/a.B/caf\u{E9}",  // é precomposed (2 bytes); decomposed it is 3
        "/a.B/SameLenA", "/a.B/SameLenB",  // equal lengths, one byte apart
    ]

    static let asked = registered + [
        "", "/", "/entitlement.v1.EntitlementService/",
        "/entitlement.v1.EntitlementService/CheckEntitlemenT",  // same length, last byte differs
        "/entitlement.v1.EntitlementService/CheckEntitlements",
        "/entitlement.v1.EntitlementService/CheckEntitlemen",
        "/a.B/\u{212A}elvin",  // KELVIN SIGN: canonically equivalent, longer in UTF-8
        "/a.B/cafe\u{301}",  // decomposed é: equivalent, longer
        "/a.B/cafe", "/a.B/SameLenC", "/a.B/samelena", "/grpc.health.v1.Health/Watch",
    ]

    func testEveryPathGetsTheDictionarysAnswerAndTheRoutersOwnPath() {
        var router = RPCRouter()
        for path in Self.registered {
            router.registerInline(path) { (_: Empty, _) in Empty() }
        }
        for path in Self.asked {
            let expected = router.methods.index(forKey: path).map { router.methods[$0].key }
            let found = router.route(forPath: path)
            XCTAssertEqual(found?.path, expected, "\(path.unicodeScalars.map { String($0.value, radix: 16) })")
            if let found, let expected {
                // The router's key itself, not the caller's spelling of it.
                XCTAssertEqual(Array(found.path.utf8), Array(expected.utf8), path)
            }
        }
        // The two equivalent spellings are found, through the dictionary.
        XCTAssertEqual(router.route(forPath: "/a.B/\u{212A}elvin")?.path, "/a.B/Kelvin")
        XCTAssertNotNil(router.route(forPath: "/a.B/cafe\u{301}"))
        XCTAssertNil(router.route(forPath: "/entitlement.v1.EntitlementService/CheckEntitlemenT"))
    }

    func testRegisteringAgainReplacesTheMethod() throws {
        var router = RPCRouter()
        router.registerInline("/a.B/M") { (_: Empty, _) in Empty() }
        router.registerInline("/a.B/M", requiresAuthentication: false) { (_: Empty, _) in Empty() }
        let found = try XCTUnwrap(router.route(forPath: "/a.B/M"))
        XCTAssertFalse(found.method.requiresAuthentication)
        XCTAssertEqual(router.methods.count, 1)
    }
}
