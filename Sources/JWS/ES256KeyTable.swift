internal import COpenSSL

/// One P-256 public key with a fixed-base table, for verifying many ES256 signatures by it.
///
/// ECDSA verification computes u1·G + u2·Q (SEC 1 §4.1.4). OpenSSL's P-256 code multiplies the
/// generator G through a built-in table, but the key Q by a windowed multiplication that costs
/// about half of a verification. Apple signs every token of a period with one leaf, so Q gets a
/// table too: a copy of the curve whose generator is Q, precomputed once (~20 ms, ~150 KB). Both
/// products are then table walks and a verification takes ~30 µs instead of ~60 µs
/// (`openssl speed ecdsap256`).
///
/// Only the group arithmetic is OpenSSL's; the verification equation is written out here, with
/// the range checks ECDSA_do_verify makes (r and s in [1, n-1], the sum not at infinity). It is
/// tested against EVP_DigestVerify on valid, tampered and out-of-range signatures
/// (`ES256KeyTableTests`), and the result never depends on whether OpenSSL used the table.
///
/// Immutable after init: both groups are only read by EC_POINT_mul, so one table serves every
/// thread; each call makes its own BN_CTX and points.
final class ES256KeyTable: @unchecked Sendable {
    /// P-256 as OpenSSL names it: generator G with its built-in table.
    private let curve: OpaquePointer
    /// P-256 with the key as its generator, and that generator's precomputed table.
    private let keyCurve: OpaquePointer
    /// The group order n, for inverting s without BN_mod_inverse (see ``UInt256``).
    private let orderLimbs: UInt256

    /// Builds the table for `publicKey` (an EVP_PKEY); nil if it is not a P-256 point or OpenSSL
    /// fails, and callers then verify through EVP as before.
    init?(publicKey: OpaquePointer) {
        guard let curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { return nil }
        guard let keyCurve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            EC_GROUP_free(curve)
            return nil
        }
        var orderBytes = [UInt8](repeating: 0, count: 32)
        guard let order = EC_GROUP_get0_order(curve), BN_bn2binpad(order, &orderBytes, 32) == 32,
              let orderLimbs = orderBytes.withUnsafeBytes({ UInt256(bigEndian: $0) }) else {
            EC_GROUP_free(curve)
            EC_GROUP_free(keyCurve)
            _ = OpenSSLErrorQueue.drain()
            return nil
        }
        self.curve = curve
        self.keyCurve = keyCurve
        self.orderLimbs = orderLimbs
        guard Self.makeGenerator(of: keyCurve, publicKey: publicKey) else {
            _ = OpenSSLErrorQueue.drain()
            return nil
        }
    }

    deinit {
        EC_GROUP_free(curve)
        EC_GROUP_free(keyCurve)
    }

    /// Sets the key as `group`'s generator (same order, cofactor 1) and precomputes its table.
    private static func makeGenerator(of group: OpaquePointer, publicKey: OpaquePointer) -> Bool {
        var encoded: UnsafeMutablePointer<UInt8>?
        let length = EVP_PKEY_get1_encoded_public_key(publicKey, &encoded)
        guard length > 0, let encoded else { return false }
        defer { copenssl_free(encoded) }
        guard let context = BN_CTX_new(), let point = EC_POINT_new(group) else { return false }
        defer {
            BN_CTX_free(context)
            EC_POINT_free(point)
        }
        // oct2point refuses bytes that are not a point on the curve.
        return EC_POINT_oct2point(group, point, encoded, length, context) == 1
            && EC_POINT_is_at_infinity(group, point) == 0
            && EC_GROUP_set_generator(group, point, EC_GROUP_get0_order(group), BN_value_one()) == 1
            && copenssl_EC_GROUP_precompute_mult(group, context) == 1
    }

    /// Whether raw `signature` (r||s, 32 bytes each) is this key's ECDSA signature of `digest`
    /// (the 32-byte SHA-256 of the signed message).
    func verify(digest: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer) -> Bool {
        guard digest.count == 32, signature.count == 64, let context = BN_CTX_new() else { return false }
        defer { BN_CTX_free(context) }
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        guard let r = BN_CTX_get(context), let s = BN_CTX_get(context), let e = BN_CTX_get(context),
              let w = BN_CTX_get(context), let u1 = BN_CTX_get(context), let u2 = BN_CTX_get(context),
              let order = EC_GROUP_get0_order(curve),
              let bytes = signature.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let hash = digest.baseAddress?.assumingMemoryBound(to: UInt8.self),
              BN_bin2bn(bytes, 32, r) != nil, BN_bin2bn(bytes + 32, 32, s) != nil,
              BN_bin2bn(hash, 32, e) != nil else {
            _ = OpenSSLErrorQueue.drain()
            return false
        }
        // r, s in [1, n-1]; e needs no truncation (P-256's order has 256 bits, like SHA-256).
        guard BN_is_zero(r) == 0, BN_is_zero(s) == 0, BN_cmp(r, order) < 0, BN_cmp(s, order) < 0 else {
            return false
        }
        guard let sum = EC_POINT_new(curve) else { return false }
        defer { EC_POINT_free(sum) }
        guard let keyTerm = EC_POINT_new(keyCurve) else { return false }
        defer { EC_POINT_free(keyTerm) }
        // w = s⁻¹, u1 = e·w, u2 = r·w (mod n); sum = u1·G + u2·Q; valid iff sum.x ≡ r (mod n).
        guard let inverse = UInt256(bigEndian: UnsafeRawBufferPointer(rebasing: signature[32..<64]))?
            .inverse(modulo: orderLimbs) else { return false }
        let computed = inverse.bigEndianBytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, w) } != nil
            && BN_mod_mul(u1, e, w, order, context) == 1
            && BN_mod_mul(u2, r, w, order, context) == 1
            && EC_POINT_mul(curve, sum, u1, nil, nil, context) == 1
            && EC_POINT_mul(keyCurve, keyTerm, u2, nil, nil, context) == 1
            && EC_POINT_add(curve, sum, sum, keyTerm, context) == 1
            && EC_POINT_is_at_infinity(curve, sum) == 0
        guard computed, let matches = Self.xCoordinate(of: sum, on: curve, isCongruentTo: r, context: context) else {
            _ = OpenSSLErrorQueue.drain()
            return false
        }
        return matches
    }

    /// Whether the affine x of `point` (not at infinity) is ≡ `r` (mod n), for r in [1, n-1];
    /// nil if OpenSSL fails.
    ///
    /// Without the field inversion of EC_POINT_get_affine_coordinates (an eighth of a table-walk
    /// verification's instructions): in Jacobian coordinates x = X/Z², so x = c iff X = c·Z² (mod p). x lies in
    /// [0, p) and p < 2n, so x ≡ r (mod n) iff x = r or x = r + n, the latter only when r + n < p.
    private static func xCoordinate(
        of point: OpaquePointer, on curve: OpaquePointer, isCongruentTo r: OpaquePointer, context: OpaquePointer
    ) -> Bool? {
        guard let x = BN_CTX_get(context), let z = BN_CTX_get(context), let zz = BN_CTX_get(context),
              let candidate = BN_CTX_get(context), let product = BN_CTX_get(context),
              let field = EC_GROUP_get0_field(curve), let order = EC_GROUP_get0_order(curve),
              copenssl_EC_POINT_get_Jprojective_coordinates(curve, point, x, nil, z, context) == 1,
              BN_mod_sqr(zz, z, field, context) == 1, BN_copy(candidate, r) != nil else { return nil }
        for step in 0..<2 {
            if step == 1 {
                guard BN_add(candidate, candidate, order) == 1 else { return nil }
                guard BN_cmp(candidate, field) < 0 else { return false }
            }
            guard BN_mod_mul(product, candidate, zz, field, context) == 1 else { return nil }
            if BN_cmp(product, x) == 0 { return true }
        }
        return false
    }
}
