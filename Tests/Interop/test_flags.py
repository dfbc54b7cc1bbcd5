"""Command-line errors exit 2 with a message on stderr; --help exits 0."""
import subprocess

import pytest


def _run(binary, *args, tmp_path):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=15, cwd=tmp_path)


@pytest.mark.parametrize("args", [
    ["--threads", "abc"],
    ["--nope"],
    ["--threads", "0"],
    ["--listen", "no-port-here"],
    ["--max-message-size", "12"],
    ["--idle-timeout", "soon"],
    ["--threads"],
])
def test_bad_flag_exits_2_with_message(binary, tmp_path, args):
    r = _run(binary, *args, tmp_path=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.strip(), "no message on stderr"
    assert "listening" not in r.stdout


def test_help_exits_0_and_lists_flags(binary, tmp_path):
    r = _run(binary, "--help", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    for flag in ("--listen", "--auth-tokens-file", "--max-message-size", "--header-read-timeout"):
        assert flag in r.stdout


def test_unreadable_tokens_file_exits_2(binary, tmp_path):
    r = _run(binary, "--listen", "127.0.0.1:0", "--database", str(tmp_path / "db.sqlite"),
             "--auth-tokens-file", str(tmp_path / "missing"), tmp_path=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "auth-tokens-file" in r.stderr
