"""``benchlab serve`` refuses, before anything is served or changed, what would hand out links that cannot run
(issue 23 items 5 and 8): a participant's wrong options, a file that lists nobody, --out naming a file, an --add id
with a trailing newline. Each is one line, exit 2, and the participants file is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_compare_sort import run_cli


def serve(tmp_path: Path, *extra: str) -> int:
    return run_cli(["serve", "sort", "--participants", str(tmp_path / "people.csv"), "--out", str(tmp_path / "out"),
                    "--port", "0", *extra])


@pytest.mark.parametrize(("rows", "says", "line"), [
    ("id,condition\nP01,stm\nP02,xyz\n", "participant 'P02': Condition", 3),
    ("id,trials\nP01,-3\n", "participant 'P01': Scored trials", 2),
    ("id,condition\n", "lists nobody", None),
])
def test_participants_whose_sessions_cannot_run_are_refused_at_start(
        tmp_path: Path, rows: str, says: str, line: int | None, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "people.csv").write_text(rows)
    assert serve(tmp_path) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert (f"people.csv:{line}:" if line else "people.csv:") in err
    assert not (tmp_path / "out" / "links.csv").exists()


def test_add_checks_the_id_and_every_participant_before_changing_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    people = tmp_path / "people.csv"
    people.write_text("id,condition\nP01,stm\n")
    assert serve(tmp_path, "--add", "P09\n") == 2
    assert "must be" in capsys.readouterr().err
    assert people.read_text() == "id,condition\nP01,stm\n"
    people.write_text("id,condition\nP01,xyz\n")
    assert serve(tmp_path, "--add", "P09") == 2
    assert "participant 'P01'" in capsys.readouterr().err and "P09" not in people.read_text()


def test_out_naming_an_existing_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "people.csv").write_text("id\nP01\n")
    (tmp_path / "out").write_text("not a folder")
    assert serve(tmp_path) == 2
    err = capsys.readouterr().err
    assert "is a file" in err and "Traceback" not in err


async def test_a_row_removed_from_the_participants_file_revokes_its_link_without_a_restart(tmp_path: Path) -> None:
    from aiohttp.test_utils import TestClient, TestServer

    from benchlab.tui.web.participants import Participant
    from tests.test_serve_server import TOKENS, Spawns, make_server

    server = make_server(Spawns(tmp_path))
    async with TestClient(TestServer(server.make_app())) as client:
        assert (await client.get(f"/s/{TOKENS['P02']}")).status == 200
        server.update({"P01": Participant("P01")}, TOKENS)  # what the re-read of the edited file does
        response = await client.get(f"/s/{TOKENS['P02']}")
        assert response.status == 404 and "This link is not valid" in await response.text()
        assert (await client.get(f"/s/{TOKENS['P01']}")).status == 200


async def test_a_url_over_8_kb_is_one_line_in_the_server_log(tmp_path: Path) -> None:
    import io
    import logging

    from aiohttp.test_utils import TestClient, TestServer

    from benchlab.tui.web.bad_requests import BadRequestLines
    from tests.test_serve_server import Spawns, make_server

    log = io.StringIO()
    handler = logging.StreamHandler(log)
    handler.addFilter(BadRequestLines())  # as serve_main installs it on serve.log's handler
    logger = logging.getLogger("aiohttp")
    logger.addHandler(handler)
    try:
        server = make_server(Spawns(tmp_path))
        async with TestClient(TestServer(server.make_app())) as client:
            assert (await client.get("/s/" + "a" * 9000)).status == 400
    finally:
        logger.removeHandler(handler)
    text = log.getvalue()
    assert "malformed request refused with 400" in text and "Traceback" not in text
