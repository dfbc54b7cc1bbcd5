"""A throwaway Apple-like PKI and an ES256 JWS signer for the notification interop tests.

Everything is generated at test time with the `openssl` CLI (no key is committed):

    root (EC P-384, self-signed CA)
      -> intermediate (EC P-256 CA, extension 1.2.840.113635.100.6.2.1)
           -> leaf (EC P-256, extension 1.2.840.113635.100.6.11.1)      signs the JWS
           -> leaf_no_oid (EC P-256, no Apple leaf extension)           must be rejected
           -> leaf_2021 (valid 2021-01-01 .. 2022-01-01 only)            verifies at old signedDates
      -> intermediate_no_oid (CA without 1.2.840.113635.100.6.2.1)
           -> leaf_under_no_oid_intermediate                            must be rejected

Certificates are issued with `openssl ca` so their validity can start in the past (2020):
the server checks the chain at the payload's signedDate, and entitlement rules ignore facts
signed after "now", so payloads are dated in the recent past.

The signer builds compact JWS exactly like Apple's: header {"alg":"ES256","x5c":[leaf,
intermediate, root]} (standard base64 DER), signature = raw r||s (64 bytes, base64url without
padding) over `header.payload`, made with `openssl dgst -sha256 -sign` (DER ECDSA) and
converted in Python.
"""
import base64
import json
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

APPLE_INTERMEDIATE_OID = "1.2.840.113635.100.6.2.1"
APPLE_LEAF_OID = "1.2.840.113635.100.6.11.1"
NOT_BEFORE = "20200101000000Z"
NOT_AFTER = "20450101000000Z"

_CA_CONFIG = """\
[ ca ]
default_ca = CA_default

[ CA_default ]
dir = {dir}
database = $dir/index.txt
new_certs_dir = $dir/newcerts
serial = $dir/serial
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
email_in_dn = no

[ policy_any ]
commonName = supplied
organizationName = optional

[ req ]
distinguished_name = req_dn
prompt = no

[ req_dn ]
CN = placeholder

[ root_ext ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[ intermediate_ext ]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
{intermediate_oid} = ASN1:NULL

[ intermediate_no_oid_ext ]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[ leaf_ext ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
{leaf_oid} = ASN1:NULL

[ leaf_no_oid_ext ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def der_ecdsa_to_raw(der: bytes, size: int = 32) -> bytes:
    """ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (DER) -> r||s, each left-padded
    to `size` bytes (the leading 0x00 DER adds to keep a high-bit integer positive is dropped)."""

    def read_length(buf, i):
        first = buf[i]
        if first < 0x80:
            return first, i + 1
        count = first & 0x7F
        return int.from_bytes(buf[i + 1:i + 1 + count], "big"), i + 1 + count

    if der[0] != 0x30:
        raise ValueError("not a DER SEQUENCE")
    length, i = read_length(der, 1)
    if i + length != len(der):
        raise ValueError("DER SEQUENCE length does not match")
    parts = []
    for _ in range(2):
        if der[i] != 0x02:
            raise ValueError("expected a DER INTEGER")
        n, i = read_length(der, i + 1)
        value = der[i:i + n].lstrip(b"\x00")
        i += n
        if len(value) > size:
            raise ValueError("integer longer than the curve size")
        parts.append(value.rjust(size, b"\x00"))
    if i != len(der):
        raise ValueError("trailing bytes after the two INTEGERs")
    return parts[0] + parts[1]


def _run(*args, cwd=None):
    result = subprocess.run(args, cwd=cwd, capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed: {result.stderr.decode(errors='replace')}")
    return result.stdout


class Key:
    """A certificate and its private key on disk."""

    def __init__(self, key_path: Path, cert_path: Path):
        self.key_path = key_path
        self.cert_path = cert_path
        self.der = _run("openssl", "x509", "-in", str(cert_path), "-outform", "DER")
        self.x5c = base64.b64encode(self.der).decode()
        self.pem = cert_path.read_text()


class PKI:
    """Root, intermediates and leaves in `directory`; `root_pem_path` is for --apple-root-ca."""

    def __init__(self, directory: Path, name: str = "Test"):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "newcerts").mkdir(exist_ok=True)
        (self.dir / "index.txt").write_text("")
        (self.dir / "serial").write_text("1000\n")
        self.config = self.dir / "ca.cnf"
        self.config.write_text(_CA_CONFIG.format(dir=self.dir, intermediate_oid=APPLE_INTERMEDIATE_OID,
                                                 leaf_oid=APPLE_LEAF_OID))
        self.root = self._issue("root", f"{name} Root CA", "secp384r1", None, "root_ext")
        self.intermediate = self._issue("intermediate", f"{name} WWDR Intermediate", "prime256v1",
                                        self.root, "intermediate_ext")
        self.leaf = self._issue("leaf", f"{name} Store Signing Leaf", "prime256v1", self.intermediate, "leaf_ext")
        self.leaf_no_oid = self._issue("leaf-no-oid", f"{name} Leaf Without OID", "prime256v1",
                                       self.intermediate, "leaf_no_oid_ext")
        self.intermediate_no_oid = self._issue("intermediate-no-oid", f"{name} Intermediate Without OID",
                                               "prime256v1", self.root, "intermediate_no_oid_ext")
        self.leaf_under_no_oid_intermediate = self._issue(
            "leaf-under-no-oid", f"{name} Leaf Under Plain Intermediate", "prime256v1",
            self.intermediate_no_oid, "leaf_ext")
        # A leaf that was valid only during 2021, like Apple's rotated-out leaves: payloads it
        # signed then must still verify (at their signedDate), payloads dated now must not.
        self.leaf_2021 = self._issue("leaf-2021", f"{name} Leaf Valid In 2021", "prime256v1", self.intermediate,
                                     "leaf_ext", not_before="20210101000000Z", not_after="20220101000000Z")
        self.root_pem_path = self.dir / "root.pem"

    def _issue(self, name, common_name, curve, issuer, extensions, not_before=NOT_BEFORE, not_after=NOT_AFTER) -> Key:
        key = self.dir / f"{name}.key"
        csr = self.dir / f"{name}.csr"
        cert = self.dir / f"{name}.pem"
        _run("openssl", "ecparam", "-name", curve, "-genkey", "-noout", "-out", str(key))
        _run("openssl", "req", "-new", "-key", str(key), "-subj", f"/CN={common_name}/O=entitlementd tests",
             "-config", str(self.config), "-out", str(csr))
        args = ["openssl", "ca", "-batch", "-notext", "-config", str(self.config), "-in", str(csr),
                "-out", str(cert), "-startdate", not_before, "-enddate", not_after, "-extensions", extensions,
                "-md", "sha384" if issuer is None or issuer is getattr(self, "root", None) else "sha256"]
        if issuer is None:
            args += ["-selfsign", "-keyfile", str(key)]
        else:
            args += ["-cert", str(issuer.cert_path), "-keyfile", str(issuer.key_path)]
        _run(*args)
        return Key(key, cert)

    def chain(self, leaf=None, intermediate=None, root=None):
        return [(leaf or self.leaf).x5c, (intermediate or self.intermediate).x5c, (root or self.root).x5c]


class Signer:
    """Signs payloads as compact ES256 JWS with an x5c chain."""

    def __init__(self, pki: PKI, leaf: Key = None, x5c=None):
        self.pki = pki
        self.leaf = leaf or pki.leaf
        self.x5c = x5c if x5c is not None else pki.chain(leaf=self.leaf)

    def sign_bytes(self, data: bytes, key: Key = None) -> bytes:
        """Raw r||s ES256 signature of `data` with `key` (default: this signer's leaf)."""
        key = key or self.leaf
        with tempfile.NamedTemporaryFile(dir=self.pki.dir, suffix=".in") as f:
            f.write(data)
            f.flush()
            der = _run("openssl", "dgst", "-sha256", "-sign", str(key.key_path), f.name)
        return der_ecdsa_to_raw(der)

    def sign(self, payload: dict, header: dict = None) -> str:
        header = header if header is not None else {"alg": "ES256", "x5c": self.x5c}
        signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + \
            b64url(json.dumps(payload, separators=(",", ":")).encode())
        return signing_input + "." + b64url(self.sign_bytes(signing_input.encode()))


def decode_payload(compact: str) -> dict:
    return json.loads(b64url_decode(compact.split(".")[1]))


def replace_payload(compact: str, payload: dict) -> str:
    """The same header and signature over a different payload: a forgery."""
    header, _, signature = compact.split(".")
    return ".".join([header, b64url(json.dumps(payload, separators=(",", ":")).encode()), signature])


# --- payload builders (Apple's field names; dates in ms) --------------------------------------

BUNDLE_ID = "com.example.app"
PRODUCT_ID = "com.example.app.pro.monthly"
DAY_MS = 86_400_000


def now_ms() -> int:
    return int(time.time() * 1000)


def transaction(transaction_id, original_transaction_id=None, *, purchase, expires, signed,
                product_id=PRODUCT_ID, original_purchase=None, revocation=None, environment="Sandbox",
                bundle_id=BUNDLE_ID, **extra):
    payload = {
        "transactionId": str(transaction_id),
        "originalTransactionId": str(original_transaction_id or transaction_id),
        "bundleId": bundle_id,
        "productId": product_id,
        "subscriptionGroupIdentifier": "21000001",
        "purchaseDate": purchase,
        "originalPurchaseDate": original_purchase if original_purchase is not None else purchase,
        "expiresDate": expires,
        "quantity": 1,
        "type": "Auto-Renewable Subscription",
        "inAppOwnershipType": "PURCHASED",
        "signedDate": signed,
        "environment": environment,
        "transactionReason": "PURCHASE" if str(transaction_id) == str(original_transaction_id or transaction_id)
        else "RENEWAL",
    }
    if revocation is not None:
        payload["revocationDate"] = revocation
        payload["revocationReason"] = 0
    payload.update(extra)
    return payload


def renewal(original_transaction_id, *, signed, auto_renew=True, product_id=PRODUCT_ID,
            billing_retry=False, grace_expires=None, environment="Sandbox", **extra):
    payload = {
        "originalTransactionId": str(original_transaction_id),
        "autoRenewProductId": product_id,
        "productId": product_id,
        "autoRenewStatus": 1 if auto_renew else 0,
        "isInBillingRetryPeriod": billing_retry,
        "signedDate": signed,
        "environment": environment,
    }
    if grace_expires is not None:
        payload["gracePeriodExpiresDate"] = grace_expires
    payload.update(extra)
    return payload


def notification(notification_type, *, signed, subtype=None, signed_transaction=None, signed_renewal=None,
                 notification_uuid=None, bundle_id=BUNDLE_ID, environment="Sandbox", **extra):
    data = {"environment": environment, "bundleId": bundle_id, "bundleVersion": "1"}
    if signed_transaction is not None:
        data["signedTransactionInfo"] = signed_transaction
    if signed_renewal is not None:
        data["signedRenewalInfo"] = signed_renewal
    payload = {
        "notificationType": notification_type,
        "notificationUUID": notification_uuid or str(uuid.uuid4()),
        "version": "2.0",
        "signedDate": signed,
        "data": data,
    }
    if subtype is not None:
        payload["subtype"] = subtype
    payload.update(extra)
    return payload
