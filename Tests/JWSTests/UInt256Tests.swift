@testable import JWS
import XCTest

/// The limb inverse used for ECDSA's s⁻¹ (``UInt256/inverse(modulo:)``): checked exhaustively
/// against a small prime, by multiplication against a 64-bit prime, on P-256's order by its
/// defining identities, and against the binary extended Euclid it replaced
/// (``UInt256/binaryEuclidInverse(modulo:)``) on edge values, every small modulus and random
/// moduli of every size, coprime or not.
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

    /// 2^bit as a UInt256 (bit < 256).
    private func power(_ bit: Int) -> UInt256 {
        var limbs: [UInt64] = [0, 0, 0, 0]
        limbs[bit / 64] = 1 << UInt64(bit % 64)
        return UInt256(limbs: (limbs[0], limbs[1], limbs[2], limbs[3]))
    }

    private func assertSameAsBinaryEuclid(
        _ value: UInt256, _ modulus: UInt256, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(value.inverse(modulo: modulus), value.binaryEuclidInverse(modulo: modulus),
                       "\(value.bigEndianBytes) mod \(modulus.bigEndianBytes)", file: file, line: line)
    }

    /// Values at the edges of P-256's order, of the 64-bit limbs and of the divsteps' 62-bit
    /// limbs: powers of two, their neighbours, n minus them, and all-ones patterns.
    func testP256OrderEdgeValuesMatchBinaryEuclid() {
        let n = Self.p256Order
        var values: [UInt256] = [.zero, .one, small(2), small(3), n]
        var nMinusOne = n
        nMinusOne.subtract(.one)
        var half = nMinusOne
        half.shiftRight(topBit: 0)
        values += [nMinusOne, half]
        for bit in 0..<256 {
            var below = power(bit), above = power(bit), nMinus = n
            below.subtract(.one)
            above.add(.one)
            nMinus.subtract(power(bit))
            values += [power(bit), below, above, nMinus]
        }
        let ones = UInt64.max
        values += [UInt256(limbs: (ones, 0, 0, 0)), UInt256(limbs: (ones, ones, 0, 0)),
                   UInt256(limbs: (ones, ones, ones, 0)), UInt256(limbs: (0, ones, 0, ones)),
                   UInt256(limbs: (ones, 0, ones, 0)), UInt256(limbs: (ones, ones, ones, ones))]
        for value in values { assertSameAsBinaryEuclid(value, n) }
        for value in values where !value.isEven { assertSameAsBinaryEuclid(small(12345), value) }
    }

    func testEverySmallOddModulusMatchesBinaryEuclid() {
        for modulus in stride(from: UInt64(1), to: 260, by: 2) {
            for value in UInt64(0)...modulus + 1 { assertSameAsBinaryEuclid(small(value), small(modulus)) }
        }
        for modulus in UInt64(2)..<6 { assertSameAsBinaryEuclid(.one, small(modulus * 2)) }
    }

    /// Random odd moduli of every width up to 256 bits with random values, some of them sharing
    /// a factor with the modulus (both must then say nil), and random values modulo n.
    func testRandomModuliMatchBinaryEuclid() {
        var generator = SeededGenerator(for: "UInt256Tests.testRandomModuliMatchBinaryEuclid")
        func random(bits: Int) -> UInt256 {
            var value = UInt256(limbs: (generator.next(), generator.next(), generator.next(), generator.next()))
            for _ in 0..<(256 - bits) { value.shiftRight(topBit: 0) }
            return value
        }
        for round in 0..<3000 {
            let bits = round % 256 + 1
            var modulus = random(bits: bits)
            modulus.limbs.0 |= 1
            var value = random(bits: max(1, bits - Int(generator.next() % 3)))
            if round % 4 == 0 {
                // A multiple of a small odd factor in both, so that the gcd exceeds 1 when it divides.
                modulus = random(bits: max(1, bits - 8))
                modulus.limbs.0 |= 1
                let factor = small(generator.next() % 50 * 2 + 3)
                modulus = multiply(modulus, factor)
                value = multiply(random(bits: max(1, bits - 8)), factor)
            }
            assertSameAsBinaryEuclid(value, modulus)
            var reduced = random(bits: 256)
            if reduced >= Self.p256Order { reduced.subtract(Self.p256Order) }
            assertSameAsBinaryEuclid(reduced, Self.p256Order)
        }
    }

    /// value·factor mod 2²⁵⁶ for a small factor, by repeated addition.
    private func multiply(_ value: UInt256, _ factor: UInt256) -> UInt256 {
        var product = UInt256.zero
        for _ in 0..<factor.limbs.0 { product.add(value) }
        return product
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
