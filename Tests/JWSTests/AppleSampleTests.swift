import Foundation
import JWS
import XCTest

/// Real tokens signed by Apple: verified at their signing date with the built-in root.
final class AppleSampleTests: XCTestCase {
    private var samples: [AppleSamples.Sample] = []
    private let verifier = JWSVerifier(trustedRoots: .appleRootCAG3)

    override func setUpWithError() throws {
        samples = try AppleSamples.load()
        XCTAssertEqual(samples.count, 11)
    }

    private func sample(_ file: String) throws -> AppleSamples.Sample {
        try XCTUnwrap(samples.first { $0.file == file })
    }

    func testEveryVerifiedSampleVerifiesAtItsSignedDateWithTheBuiltInRoot() throws {
        let positives = samples.filter(\.verified)
        XCTAssertEqual(positives.count, 9)
        for sample in positives {
            let unverified = try AppleSamples.unverifiedObject(sample.token)
            let signedDate = try XCTUnwrap(AppleSamples.signingTime(of: unverified), sample.file)
            XCTAssertEqual(signedDate, sample.signedDate.int64Value, sample.file)
            let verified = try verifier.verify(sample.token, at: signedDate)
            let payload = try JSONSerialization.jsonObject(with: Data(verified.payload)) as! NSDictionary
            XCTAssertEqual(payload, sample.decodedPayload, sample.file)
            try assertNestedTokensVerify(sample, payload: payload)
        }
    }

    /// Notifications carry their own signed transaction and renewal info: each verifies alone.
    private func assertNestedTokensVerify(_ sample: AppleSamples.Sample, payload: NSDictionary) throws {
        let data = payload["data"] as? NSDictionary
        for field in sample.nestedVerified {
            let nested = try XCTUnwrap(data?[field] as? String, "\(sample.file) \(field)")
            let signedDate = try XCTUnwrap(AppleSamples.signingTime(of: try AppleSamples.unverifiedObject(nested)))
            let verified = try verifier.verify(nested, at: signedDate)
            let object = try JSONSerialization.jsonObject(with: Data(verified.payload)) as! NSDictionary
            XCTAssertEqual(object, sample.decodedNested[field], "\(sample.file) \(field)")
        }
    }

    func testEditedNotificationIsRejectedForItsSignature() throws {
        let edited = try sample("notification-DID_RENEW-2.jws")
        XCTAssertFalse(edited.verified)
        XCTAssertEqual(edited.reason, "ES256 signature does not verify")
        assertRejects(.badSignature) { () throws(JWSError) in
            try verifier.verify(edited.token, at: edited.signedDate.int64Value)
        }
        // Its nested transaction was edited too; the renewal info was not and still verifies.
        let data = try XCTUnwrap(try AppleSamples.unverifiedObject(edited.token)["data"] as? NSDictionary)
        let transaction = try XCTUnwrap(data["signedTransactionInfo"] as? String)
        let renewal = try XCTUnwrap(data["signedRenewalInfo"] as? String)
        assertRejects(.badSignature) { () throws(JWSError) in
            try verifier.verify(transaction, at: edited.signedDate.int64Value)
        }
        let renewalDate = try XCTUnwrap(AppleSamples.signingTime(of: try AppleSamples.unverifiedObject(renewal)))
        XCTAssertNoThrow(try verifier.verify(renewal, at: renewalDate))
    }

    func testXcodeSelfSignedTokenIsRejectedForItsSingleCertificate() throws {
        let xcode = try sample("transaction-tx-4.jws")
        XCTAssertFalse(xcode.verified)
        XCTAssertEqual(xcode.reason, "x5c has 1 cert(s), expected 3")
        // Its signedDate is a float (1697679936056.485): Xcode's local signer, not Apple's.
        XCTAssertEqual(try AppleSamples.unverifiedObject(xcode.token)["environment"] as? String, "Xcode")
        assertRejects(.wrongCertificateCount) { () throws(JWSError) in
            try verifier.verify(xcode.token, at: xcode.signedDate.int64Value)
        }
    }

    func testRealTokenFailsAtTheCurrentTimeBecauseItsLeafExpired() throws {
        // The 2023-2025 leaf expired on 2025-10-11: why verification happens at signedDate.
        let transaction = try sample("transaction-tx-1.jws")
        assertRejects(.certificateExpired, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(transaction.token, at: PKIFixture.nowMs)
        }
        assertRejects(.certificateNotYetValid, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(transaction.token, at: 1_600_000_000_000)
        }
    }

    func testCachedAndUncachedVerificationAgreeOnEverySample() throws {
        let uncached = JWSVerifier(trustedRoots: .appleRootCAG3, chainCacheCapacity: 0)
        for sample in samples {
            for time in [sample.signedDate.int64Value, PKIFixture.nowMs, sample.signedDate.int64Value] {
                let cachedCode = Result { () throws(JWSError) in try verifier.verify(sample.token, at: time) }
                let uncachedCode = Result { () throws(JWSError) in try uncached.verify(sample.token, at: time) }
                XCTAssertEqual(Self.code(cachedCode), Self.code(uncachedCode), "\(sample.file) at \(time)")
            }
        }
    }

    private static func code(_ result: Result<VerifiedJWS, JWSError>) -> String {
        switch result {
        case .success: "verified"
        case .failure(let error): error.code.description
        }
    }

    func testSigningTimeFallsBackToTheNestedTransaction() throws {
        let notification = try sample("notification-DID_RENEW-1.jws")
        let payload = try XCTUnwrap(
            AppleSamples.unverifiedObject(notification.token).mutableCopy() as? NSMutableDictionary)
        payload.removeObject(forKey: "signedDate")
        let nested = (payload["data"] as! NSDictionary)["signedTransactionInfo"] as! String
        let nestedDate = try XCTUnwrap(AppleSamples.unverifiedObject(nested)["signedDate"] as? NSNumber)
        XCTAssertEqual(try AppleSamples.signingTime(of: payload), nestedDate.int64Value)
    }

    func testBuiltInRootIsTheSharedAppleRootCAG3() throws {
        let roots = TrustedRoots.appleRootCAG3
        XCTAssertEqual(roots.count, 1)
        XCTAssertEqual(
            roots.summaries.first?.hasPrefix(
                "CN=Apple Root CA - G3,OU=Apple Certification Authority,O=Apple Inc.,C=US"), true)
        XCTAssertEqual(
            roots.summaries.first?.hasSuffix(
                "(SHA-256 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:"
                    + "7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79)"), true)
        // The file an operator would pass as --apple-root-ca gives the same trust.
        let fromFile = try TrustedRoots(pem: try AppleSamples.rootPEM)
        XCTAssertEqual(fromFile.summaries, roots.summaries)
        let transaction = try sample("transaction-tx-1.jws")
        XCTAssertNoThrow(
            try JWSVerifier(trustedRoots: fromFile).verify(transaction.token, at: transaction.signedDate.int64Value))
    }
}
