"""Generated protobuf modules for the benchmark helpers (grpc_tools, into a cache directory).

Each proto is compiled with its own directory as include root (as Tests/Interop/conftest.py
does), so no generated package named `grpc` shadows grpcio.
"""
import struct
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROTOS = REPO / "Protos"
PROTO_FILES = [("entitlement/v1", "entitlement.proto"), ("entitlementd/testing/v1", "testing.proto")]


def load(out_dir: Path) -> types.SimpleNamespace:
    from grpc_tools import protoc

    out_dir.mkdir(parents=True, exist_ok=True)
    for include, name in PROTO_FILES:
        args = ["protoc", f"-I{PROTOS / include}", f"--python_out={out_dir}", f"--grpc_python_out={out_dir}", name]
        if protoc.main(args) != 0:
            sys.exit(f"protoc failed for {include}/{name}")
    sys.path.insert(0, str(out_dir))
    import entitlement_pb2, entitlement_pb2_grpc, testing_pb2, testing_pb2_grpc

    return types.SimpleNamespace(ent=entitlement_pb2, ent_grpc=entitlement_pb2_grpc,
                                 testing=testing_pb2, testing_grpc=testing_pb2_grpc)


def grpc_frame(message: bytes) -> bytes:
    """One uncompressed gRPC length-prefixed message: flag 0, 4-byte big-endian length."""
    return b"\x00" + struct.pack(">I", len(message)) + message
