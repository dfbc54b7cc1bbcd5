@testable import JWS
import XCTest

/// The limb inverse used for ECDSA's s⁻¹ (``UInt256/inverse(modulo:)``): checked exhaustively
/// against a small prime, by multiplication against a 64-bit prime, and on P-256's order
/// (whose size makes the halving carry out of 256 bits) by its defining identities.
final class UInt256Tests: XCTestCase {
    private static let p256Order = UInt256(limbs: (0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84,
                                                   0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000))

    private func small(_ value: UInt64) -> UInt256 { UInt256(limbs: (value, 0, 0, 0)) }

    func testEveryResidueOfASmallPrimeInverts() throws {
        for value in UInt64(1)..<97 {
            let inverse = try XCTUnwrap(small(value).inverse(modulo: small(97)), "\(value)")
            XCTAssertEqual(inverse.limbs.1 | inverse.limbs.2 | inverse.limbs.3, 0)
            XCTAssertEqual(value * inverse.limbs.0 % 97, 1, "\(value)")
        }
    }

    func testRandomValuesInvertModuloA64BitPrime() throws {
        let prime: UInt64 = 18_446_744_073_709_551_557  // 2^64 - 59
        var generator = SeededGenerator(for: "UInt256Tests.testRandomValuesInvertModuloA64BitPrime")
        for _ in 0..<500 {
            let value = UInt64.random(in: 1..<prime, using: &generator)
            let inverse = try XCTUnwrap(small(value).inverse(modulo: small(prime)))
            let product = value.multipliedFullWidth(by: inverse.limbs.0)
            XCTAssertEqual(prime.dividingFullWidth((product.high, product.low)).remainder, 1, "\(value)")
        }
    }

    func testP256OrderInversesAreInvolutionsWithKnownValues() throws {
        let n = Self.p256Order
        XCTAssertEqual(UInt256.one.inverse(modulo: n), .one)
        var nMinusOne = n
        nMinusOne.subtract(.one)
        XCTAssertEqual(nMinusOne.inverse(modulo: n), nMinusOne, "(-1)⁻¹ = -1")
        var half = n  // 2⁻¹ = (n + 1) / 2
        half.add(.one)
        half.shiftRight(topBit: 0)
        XCTAssertEqual(small(2).inverse(modulo: n), half)
        var generator = SeededGenerator(for: "UInt256Tests.testP256OrderInversesAreInvolutionsWithKnownValues")
        for _ in 0..<300 {
            var value = UInt256(limbs: (generator.next(), generator.next(), generator.next(), generator.next()))
            if value >= n { value.subtract(n) }
            guard !value.isZero else { continue }
            let inverse = try XCTUnwrap(value.inverse(modulo: n))
            XCTAssertTrue(n >= inverse && inverse != n)
            XCTAssertEqual(inverse.inverse(modulo: n), value)
        }
    }

    func testNoInverseForZeroOutOfRangeOrEvenModulus() {
        XCTAssertNil(UInt256.zero.inverse(modulo: Self.p256Order))
        XCTAssertNil(Self.p256Order.inverse(modulo: Self.p256Order))
        XCTAssertNil(small(3).inverse(modulo: small(10)))
        XCTAssertNil(small(3).inverse(modulo: small(9)), "gcd 3")
    }

    func testBigEndianBytesRoundTrip() throws {
        let bytes = (0..<32).map { UInt8($0 * 7 + 1) }
        let value = try XCTUnwrap(bytes.withUnsafeBytes { UInt256(bigEndian: $0) })
        XCTAssertEqual(value.limbs.3 >> 56, 1)
        XCTAssertEqual(value.bigEndianBytes, bytes)
        XCTAssertNil([UInt8](repeating: 0, count: 31).withUnsafeBytes { UInt256(bigEndian: $0) })
    }
}
