"""Shared helpers for the interop tests: they drive the real `latchkey` binary as a user would."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[4]


def latchkey_binary() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("LATCHKEY_BIN", ROOT / ".build" / "debug" / "latchkey"))
    if not path.exists():
        raise RuntimeError(f"latchkey binary not found at {path}; build it first (scripts/test does)")
    return path


@pytest.fixture
def latchkey(tmp_path):
    """Runs `latchkey` with a private authenticator store; returns (exit status, stdout, stderr)."""
    store = tmp_path / "authenticator.json"

    def run(*args, stdin=None, env=None):
        environment = dict(os.environ, LATCHKEY_AUTHENTICATOR_STORE=str(store), **(env or {}))
        proc = subprocess.run(
            [str(latchkey_binary()), *args],
            input=json.dumps(stdin).encode() if stdin is not None else b"",
            capture_output=True,
            env=environment,
            timeout=60,
        )
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()

    run.store = store
    return run
