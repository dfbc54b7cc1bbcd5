// OpenSSL libcrypto 3.0. Macros that do not import are wrapped as static inline helpers.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
// Hides every API OpenSSL 3.0 deprecated (EC_KEY_*, ECDSA_do_*, the low-level EC_GROUP and
// EC_POINT helpers, HMAC_CTX...), so Swift cannot call one: keys go through EVP_PKEY and
// signatures through EVP_DigestSign/EVP_DigestVerify (openssl_user_macros(7)).
#define OPENSSL_NO_DEPRECATED
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/objects.h>
#include <openssl/hmac.h>
#include <openssl/pkcs7.h>
#include <openssl/asn1.h>

static inline STACK_OF(X509) *copenssl_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int copenssl_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline void copenssl_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
static inline int copenssl_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *copenssl_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
static inline void copenssl_free(void *p) { OPENSSL_free(p); }
static inline long copenssl_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline unsigned long copenssl_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
// Certificate issuance and ES256 signing (the App Store simulator's PKI).
static inline EVP_PKEY *copenssl_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
static inline int copenssl_MBSTRING_ASC(void) { return MBSTRING_ASC; }
// PKCS#7 and generic ASN.1 reading (the App Store app receipt).
static inline const unsigned char *copenssl_pkcs7_signed_data(PKCS7 *p7, int *length) {
    if (p7 == NULL || !PKCS7_type_is_signed(p7) || p7->d.sign == NULL) return NULL;
    PKCS7 *inner = p7->d.sign->contents;
    if (inner == NULL || !PKCS7_type_is_data(inner) || inner->d.data == NULL) return NULL;
    *length = ASN1_STRING_length(inner->d.data);
    return ASN1_STRING_get0_data(inner->d.data);
}
static inline int copenssl_sk_ASN1_TYPE_num(const STACK_OF(ASN1_TYPE) *sk) { return sk_ASN1_TYPE_num(sk); }
static inline ASN1_TYPE *copenssl_sk_ASN1_TYPE_value(const STACK_OF(ASN1_TYPE) *sk, int i) {
    return sk_ASN1_TYPE_value(sk, i);
}
static inline void copenssl_sk_ASN1_TYPE_pop_free(STACK_OF(ASN1_TYPE) *sk) { sk_ASN1_TYPE_pop_free(sk, ASN1_TYPE_free); }
// The string-like value of an ASN1_TYPE (INTEGER, OCTET STRING, SEQUENCE, SET, UTF8String...);
// NULL for BOOLEAN, OBJECT and NULL, whose union members are not strings.
static inline const ASN1_STRING *copenssl_ASN1_TYPE_string(const ASN1_TYPE *t) {
    switch (t->type) {
    case V_ASN1_BOOLEAN: case V_ASN1_OBJECT: case V_ASN1_NULL: return NULL;
    default: return t->value.asn1_string;
    }
}
#endif
