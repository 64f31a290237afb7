"""A stand-in participant app for the server's tests: speaks Textual's web-driver packets, no Textual.

Usage: ``python web_fake_app.py RECORD_FILE [--ready-after S] [--child]``. It writes the ``__GANGLION__`` line,
draws a 1 KiB "frame" after ``--ready-after`` seconds, then appends (and fsyncs) one JSON line per packet it gets:
``{"kind": "D"|"M", "data": ...}``; ``--child`` starts a grandchild (``sleep``) in its group, so tests can see that
the whole process group goes. It exits on stdin EOF.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main() -> None:
    record = sys.argv[1]
    ready_after = float(sys.argv[sys.argv.index("--ready-after") + 1]) if "--ready-after" in sys.argv else 0.0
    if "--child" in sys.argv:
        child = subprocess.Popen(["sleep", "600"])
        with open(record + ".child", "w") as handle:
            handle.write(str(child.pid))
    out = sys.stdout.buffer
    out.write(b"__GANGLION__\n")
    out.flush()
    time.sleep(ready_after)
    frame = b"\x1b[H" + b"x" * 1024
    out.write(b"D" + len(frame).to_bytes(4, "big") + frame)
    out.flush()
    buf = b""
    stdin = sys.stdin.buffer
    while True:
        chunk = os.read(stdin.fileno(), 65536)
        if not chunk:
            return
        buf += chunk
        while len(buf) >= 5:
            size = int.from_bytes(buf[1:5], "big")
            if len(buf) < 5 + size:
                break
            kind, payload, buf = buf[:1].decode(), buf[5 : 5 + size], buf[5 + size :]
            data = payload.decode("utf-8", "replace") if kind == "D" else json.loads(payload)
            with open(record, "a") as handle:
                handle.write(json.dumps({"kind": kind, "data": data}) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            if kind == "D":
                echo = b"got:" + payload
                out.write(b"D" + len(echo).to_bytes(4, "big") + echo)
                out.flush()


if __name__ == "__main__":
    main()
