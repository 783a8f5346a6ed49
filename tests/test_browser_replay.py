"""``cardgym replay LOG --html PAGE`` in a real browser: headless Chromium loads the self-contained page, steps
through moves with the arrow key (the page's ``#keys=N`` hook presses → N times) and the test reads what is shown.

Needs Chromium: on Debian or Ubuntu ``apt-get install chromium`` (``.ci/run`` installs it); where it is missing the
test is skipped with that instruction."""

from __future__ import annotations

import html
import re
import shutil
import subprocess

import pytest

from envs.gamelog import read_log
from envs.replay_page import frames_of
from training.cli import main as cli_main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def shown(page, keys: int, tmp_path) -> tuple[str, str]:
    """(frame counter, move text) the browser shows after pressing → ``keys`` times."""
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / f'profile{keys}'}",
                          "--virtual-time-budget=3000", "--dump-dom", f"{page.as_uri()}#keys={keys}"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    where = re.search(r'id="where">([^<]*)<', dom)[1]
    move = re.search(r'id="move">(.*?)</div>', dom, flags=re.S)[1]
    return where, move


def plain(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split()


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium for the browser test: apt-get install chromium")
def test_replay_page_steps_through_the_game_in_chromium(tmp_path, capsys) -> None:
    log_path, page = tmp_path / "game.jsonl", tmp_path / "game.html"
    cli_main(["watch", "tripoli", "--agents", "heuristic", "tight", "random", "longsuit", "--seed", "3",
              "--log", str(log_path)])
    cli_main(["replay", str(log_path), "--html", str(page), "--seat", "2"])
    capsys.readouterr()
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"?https?:", text)  # self-contained: nothing fetched from the network
    frames = frames_of(read_log(log_path)[0], 2)
    for keys in (0, 3, len(frames) + 5):  # the last press goes past the end: the page stops at the last frame
        k = min(keys, len(frames) - 1)
        where, move = shown(page, keys, tmp_path)
        assert where == f"frame {k + 1} of {len(frames)}"
        assert plain(move) == plain(frames[k]["move"])
    assert "select (hidden)" in text and "(forced)" in text  # others' secret choices hidden; forced moves listed
