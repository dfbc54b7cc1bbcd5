import Foundation
import JWS

/// Every chain the synthetic tests need, generated once per test process.
struct PKIFixture: Sendable {
    typealias Credential = TestPKI.Credential

    let root: Credential
    let intermediate: Credential
    let leaf: Credential
    let leafWithoutOID: Credential
    let leafP384: Credential
    let intermediateWithoutOID: Credential
    let leafUnderIntermediateWithoutOID: Credential
    /// A second, independent PKI: its root is not trusted by ``trustedRoots``.
    let otherRoot: Credential
    let otherIntermediate: Credential
    let otherLeaf: Credential
    let trustedRoots: TrustedRoots

    /// Days the leaves are valid from their creation (the intermediates: ten years).
    static let leafDays: Int64 = 30
    static let dayMs: Int64 = 86_400_000

    static let shared = Result { try PKIFixture() }

    private init() throws {
        root = try TestPKI.root("JWS Test Root")
        intermediate = try TestPKI.issue(
            "JWS Test Intermediate", profile: "intermediate", curve: .p384, by: root, days: 3650)
        leaf = try TestPKI.issue(
            "JWS Test Leaf", profile: "leaf", curve: .p256, by: intermediate, days: Int(Self.leafDays))
        leafWithoutOID = try TestPKI.issue(
            "JWS Test Leaf without OID", profile: "leaf_without_oid", curve: .p256, by: intermediate)
        leafP384 = try TestPKI.issue("JWS Test Leaf P-384", profile: "leaf", curve: .p384, by: intermediate)
        intermediateWithoutOID = try TestPKI.issue(
            "JWS Test Intermediate without OID", profile: "intermediate_without_oid",
            curve: .p384, by: root, days: 3650)
        leafUnderIntermediateWithoutOID = try TestPKI.issue(
            "JWS Test Leaf under plain intermediate", profile: "leaf",
            curve: .p256, by: intermediateWithoutOID)
        otherRoot = try TestPKI.root("Other Test Root", curve: .p256)
        otherIntermediate = try TestPKI.issue(
            "Other Test Intermediate", profile: "intermediate", curve: .p256, by: otherRoot, days: 3650)
        otherLeaf = try TestPKI.issue("Other Test Leaf", profile: "leaf", curve: .p256, by: otherIntermediate)
        trustedRoots = try TrustedRoots(pem: root.certificatePEM)
    }

    /// The valid chain, as x5c orders it.
    var chain: [[UInt8]] { [leaf.der, intermediate.der, root.der] }

    /// A compact JWS signed by `signer` over a header holding `algorithm` and `chain`.
    static func token(payload: String = #"{"message":"hello","signedDate":1700000000000}"#,
                      algorithm: String = "ES256", chain: [[UInt8]], signer: Credential,
                      extraHeader: [String: Any] = [:]) throws -> String {
        var header: [String: Any] = ["alg": algorithm, "x5c": chain.map { Data($0).base64EncodedString() }]
        header.merge(extraHeader) { _, new in new }
        let headerJSON = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        let signingInput = base64URL([UInt8](headerJSON)) + "." + base64URL(Array(payload.utf8))
        let signature = try TestPKI.sign(Array(signingInput.utf8), with: signer)
        return signingInput + "." + base64URL(signature)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static var nowMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
