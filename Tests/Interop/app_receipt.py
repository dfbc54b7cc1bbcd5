"""App Store app receipts built by the tests: PKCS#7 SignedData (signed with a throwaway key by
the `cryptography` package) whose content is Apple's receipt payload, a DER SET of
ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }; type 17 is
an in-app purchase receipt, itself such a SET, with 1703 transaction_id and 1705
original_transaction_id as UTF8Strings (the layout Apple documents and ReceiptUtility reads)."""
import base64
import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs7
from cryptography.x509.oid import NameOID


def _length(n):
    if n < 0x80:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def tlv(tag, content):
    return bytes([tag]) + _length(len(content)) + content


def integer(value):
    raw = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big")
    return tlv(0x02, raw)


def utf8(text):
    return tlv(0x0C, text.encode())


def attribute(kind, value, version=1):
    return tlv(0x30, integer(kind) + integer(version) + tlv(0x04, value))


def attribute_set(attributes):
    return tlv(0x31, b"".join(attributes))


def in_app(transaction_id, original_transaction_id, product_id="com.example.app.pro.monthly"):
    return attribute(17, attribute_set([
        attribute(1701, integer(1)),
        attribute(1702, utf8(product_id)),
        attribute(1703, utf8(str(transaction_id))),
        attribute(1705, utf8(str(original_transaction_id))),
    ]))


def payload(purchases, bundle_id="com.example.app"):
    """`purchases`: (transaction_id, original_transaction_id) pairs."""
    return attribute_set([attribute(2, utf8(bundle_id)), attribute(3, utf8("1.0"))]
                         + [in_app(t, o) for t, o in purchases])


_SIGNER = None


def _signer():
    global _SIGNER
    if _SIGNER is None:
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test Receipt Signer")])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
        _SIGNER = (cert, key)
    return _SIGNER


def signed(content):
    """PKCS#7 SignedData carrying `content` (DER)."""
    cert, key = _signer()
    return (pkcs7.PKCS7SignatureBuilder().set_data(content).add_signer(cert, key, hashes.SHA256())
            .sign(serialization.Encoding.DER, []))


def receipt_base64(purchases, bundle_id="com.example.app"):
    return base64.b64encode(signed(payload(purchases, bundle_id))).decode()
