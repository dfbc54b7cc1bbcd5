import JWS
import Testing

/// ``ES256SigningKey/signDER(_:)``: the DER form StoreKit's promotional offers take, verified
/// with the key's public half through the same EVP verification calls as every token.
struct DERSignatureTests {
    @Test func aDERSignatureVerifiesOverExactlyItsMessage() throws {
        let key = try ES256SigningKey.generate()
        let message = Array("com.example.app\u{2063}KEY\u{2063}pro\u{2063}offer".utf8)
        let signature = try key.signDER(message)
        #expect(signature.first == 0x30, "a DER SEQUENCE (ECDSA-Sig-Value), not raw r||s")
        #expect((8...72).contains(signature.count))
        try key.verifyDER(signature, over: message)
        #expect(throws: JWSError.self) { try key.verifyDER(signature, over: message + [0x00]) }
        #expect(throws: JWSError.self) { try ES256SigningKey.generate().verifyDER(signature, over: message) }
        // ECDSA draws a fresh k: two signatures differ, both verify.
        let again = try key.signDER(message)
        #expect(again != signature)
        try key.verifyDER(again, over: message)
    }
}
