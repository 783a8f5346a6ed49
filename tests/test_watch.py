"""``cardgym watch``: bots play move by move as a spectator sees it (secret choices hidden, forced moves on their own
lines), ``--reveal`` names them and shows each acting player's view, ``--log`` writes a log that verifies."""

from __future__ import annotations

import re

import pytest

from envs.gamelog import read_log, verify
from training.cli import main as cli_main


def watch(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    cli_main(["watch", *args])
    return capsys.readouterr().out


def test_watch_shows_every_move_hides_secrets_and_logs(tmp_path, capsys) -> None:
    log = tmp_path / "watched.jsonl"
    out = watch(["tripoli", "--agents", "heuristic", "tight", "random", "longsuit", "--seed", "3", "--log", str(log)],
                capsys)
    assert "player_0 is heuristic, player_1 is tight, player_2 is random, player_3 is longsuit" in out
    assert "select (hidden)" in out and "(forced): continue run (" in out and "Summary of deal 1" in out
    assert "[player_0 sees]" not in out
    (game,) = read_log(log)
    verify(game)
    steps = [line for line in game.lines if line["type"] == "step"]
    assert len(re.findall(r"^player_\d: ", out, flags=re.MULTILINE)) == len(steps)  # every decision, one line
    assert out.count("(forced): ") == sum(len(s["forced"]) for s in steps)


def test_watch_reveal_names_secret_choices_and_shows_the_actor_view(capsys) -> None:
    out = watch(["tripoli", "--agents", "heuristic", "--seed", "3", "--reveal"], capsys)
    assert "select (hidden)" not in out and "[player_1 sees]" in out
    assert any(line.startswith("player_") and ": select " in line for line in out.splitlines())


@pytest.mark.parametrize(("args", "message"), [
    (["tripoli", "--agents", "heuristic", "random"], "give one agent spec for every seat or one per seat (4), got 2"),
    (["triolet", "--agents", "nobody"], "unknown agent 'nobody'"),
    (["flipflop", "--delay", "-1"], "--delay"),
])
def test_watch_refuses_bad_arguments_in_one_line(args, message, capsys) -> None:
    with pytest.raises(SystemExit) as e:
        cli_main(["watch", *args])
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and err.count("\n") == 1
