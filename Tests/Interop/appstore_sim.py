"""appstore-sim for interop tests: start it with a Server API key, mint Apple-shaped JWTs for it
with Python's `cryptography` (an implementation independent of the Swift one), call its Server
API and control API."""
import base64
import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from ports import free_port

KEY_ID = "SIMKEY0001"
ISSUER_ID = "5a1e5a1e-0000-4000-8000-000000000001"
BUNDLE_ID = "com.example.app"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Sim:
    """One running `appstore-sim serve` with --api-key-out."""

    def __init__(self, binary: Path, workdir: Path, *flags):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.key_path = workdir / "sim-api-key.p8"
        self.root_path = workdir / "sim-root.pem"
        self.log = workdir / f"sim-{self.port}.log"
        self.proc = subprocess.Popen(
            [str(binary), "serve", "--listen", f"127.0.0.1:{self.port}", "--bundle-id", BUNDLE_ID,
             "--api-key-out", str(self.key_path), "--root-ca-out", str(self.root_path), *flags],
            stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while "listening on" not in (self.log.read_text(errors="replace") if self.log.exists() else ""):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"appstore-sim did not start: {self.log.read_text(errors='replace')}")
            time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def token(self, header=None, claims=None, key=None) -> str:
        """An ES256 JWT as Apple wants it, signed with the .p8 the simulator wrote (or `key`)."""
        now = int(time.time())
        full_header = {"alg": "ES256", "kid": KEY_ID, "typ": "JWT", **(header or {})}
        full_claims = {"iss": ISSUER_ID, "iat": now, "exp": now + 1200, "aud": "appstoreconnect-v1",
                       "bid": BUNDLE_ID, **(claims or {})}
        signing_input = b64url(json.dumps(full_header).encode()) + "." + b64url(json.dumps(full_claims).encode())
        key = key or serialization.load_pem_private_key(self.key_path.read_bytes(), None)
        r, s = utils.decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    def request(self, method, path, body=None, token=None, headers=None):
        """(status, JSON or text body, headers) of one HTTP request."""
        data = json.dumps(body).encode() if body is not None else None
        all_headers = {"content-type": "application/json", **(headers or {})}
        if token is not False:
            all_headers["authorization"] = "Bearer " + (token or self.token())
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, raw, got = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, raw, got = error.code, error.read(), error.headers
        try:
            return status, json.loads(raw), got
        except ValueError:
            return status, raw.decode(errors="replace"), got

    def control(self, name, body=None):
        status, answer, _ = self.request("POST", f"/control/{name}", body or {}, token=False)
        assert status == 200, f"control {name}: {status} {answer}"
        return answer

    def get(self, path):
        status, answer, _ = self.request("GET", path, token=False)
        assert status == 200, f"{path}: {status} {answer}"
        return answer
