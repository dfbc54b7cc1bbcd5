"""Writes webhook bodies for Benchmarks/notifications.sh, one JSON body per line.

    notification_bodies.py OUT_DIR [--v2 20000] [--v1 60000]     (0 skips a kind, PKI included)

OUT_DIR/pki/: a throwaway Apple-like PKI (Tests/Interop/apple_pki.py, openssl CLI); the server
trusts OUT_DIR/pki/root.pem through --apple-root-ca.
OUT_DIR/v2.jsonl: DID_RENEW notifications, each about its own subscription chain (ids
2000000950000000 + 1000 * i): {"signedPayload": JWS} whose payload carries a signed
transaction (the renewal) and a signed renewal info, three ES256 JWS with the x5c chain.
Signed with the `cryptography` package (the leaf key from the PKI) since one openssl process
per signature would take minutes.
OUT_DIR/v2-owners.jsonl: per chain, `{"user_id": ..., "facts_json": ...}` for Testing/Seed
(the first purchase), so the notifications can be applied with owners.
OUT_DIR/v1.jsonl: the V1 DID_RENEW sample, password SHARED-SECRET, its transaction ids shifted
per body (each its own chain, each body its own hash).
"""
import argparse
import copy
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "Interop"))
import apple_pki  # noqa: E402
from apple_pki import DAY_MS, PKI, Signer, notification, renewal, transaction  # noqa: E402

MINUTE_MS = 60_000
V1_ID_KEYS = {"transaction_id", "original_transaction_id", "web_order_line_item_id"}


class FastSigner(Signer):
    """apple_pki.Signer with the signature made in-process: same header, same r||s format."""

    def __init__(self, pki):
        super().__init__(pki)
        self.key = serialization.load_pem_private_key(self.leaf.key_path.read_bytes(), password=None)

    def sign_bytes(self, data: bytes, key=None) -> bytes:
        r, s = decode_dss_signature(self.key.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def v2_bodies(signer, count, out, owners):
    now = apple_pki.now_ms()
    for i in range(count):
        chain = str(2_000_000_950_000_000 + i * 1000)
        first = transaction(chain, purchase=now - 29 * DAY_MS, expires=now + DAY_MS, signed=now - 29 * DAY_MS + 1000)
        renewed = transaction(str(int(chain) + 1), chain, purchase=now - MINUTE_MS, expires=now + 31 * DAY_MS,
                              signed=now - MINUTE_MS + 1000, original_purchase=first["purchaseDate"])
        payload = notification("DID_RENEW", signed=renewed["signedDate"] + 500,
                               signed_transaction=signer.sign(renewed),
                               signed_renewal=signer.sign(renewal(chain, signed=renewed["signedDate"])))
        out.write(json.dumps({"signedPayload": signer.sign(payload)}, separators=(",", ":")) + "\n")
        facts = {"transactions": [{
            "transaction_id": first["transactionId"], "original_transaction_id": chain,
            "product_id": first["productId"], "purchase_date_ms": first["purchaseDate"],
            "original_purchase_date_ms": first["originalPurchaseDate"], "expires_date_ms": first["expiresDate"],
            "subscription_group_identifier": first["subscriptionGroupIdentifier"], "environment": "sandbox"}],
            "renewal_infos": []}
        owners.write(json.dumps({"user_id": f"bench-n{i}", "facts_json": json.dumps(facts)}) + "\n")


def shift(node, offset):
    if isinstance(node, dict):
        return {k: (str(int(v) + offset) if k in V1_ID_KEYS and str(v).isdigit() else shift(v, offset))
                for k, v in node.items()}
    if isinstance(node, list):
        return [shift(v, offset) for v in node]
    return node


def v1_bodies(count, out):
    sample = json.loads((ROOT.parent / "shared" / "samples" / "notification-v1-did-renew-sandbox.json").read_text())
    for i in range(count):
        out.write(json.dumps(shift(copy.deepcopy(sample), (i + 1) * 1_000_000), separators=(",", ":")) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--v2", type=int, default=20_000)
    parser.add_argument("--v1", type=int, default=60_000)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.v2:
        signer = FastSigner(PKI(args.out / "pki", "Bench"))
        with open(args.out / "v2.jsonl", "w") as out, open(args.out / "v2-owners.jsonl", "w") as owners:
            v2_bodies(signer, args.v2, out, owners)
    if args.v1:
        with open(args.out / "v1.jsonl", "w") as out:
            v1_bodies(args.v1, out)
    print(f"{args.v2} V2 and {args.v1} V1 bodies in {args.out}")


if __name__ == "__main__":
    main()
