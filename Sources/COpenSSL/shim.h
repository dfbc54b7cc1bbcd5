// OpenSSL libcrypto 3.0. Macros that do not import are wrapped as static inline helpers.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
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
#endif
