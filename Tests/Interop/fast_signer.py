"""apple_pki.Signer's JWS, signed in-process with the `cryptography` package (Scripts/test
installs it into the venv): the openssl CLI costs ~5 ms a signature, and load tests sign
thousands."""
from apple_pki import Signer


class FastSigner(Signer):
    def __init__(self, pki):
        super().__init__(pki)
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, utils
        self._key = serialization.load_pem_private_key(pki.leaf.key_path.read_bytes(), None)
        self._algorithm = ec.ECDSA(hashes.SHA256())
        self._decode = utils.decode_dss_signature

    def sign_bytes(self, data, key=None):
        assert key is None or key is self.leaf, "FastSigner signs with its leaf only"
        r, s = self._decode(self._key.sign(data, self._algorithm))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")
