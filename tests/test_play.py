"""``cardgym play`` driven as a user would: the real command in a pseudo-terminal (pexpect), scripted answers."""

from __future__ import annotations

import io
import re
import signal
import sys
from pathlib import Path

import pexpect
import pytest
from hypothesis import given
from hypothesis import strategies as st

from envs.gamelog import read_log, replay
from training.cli import main as cli_main
from training.cmd_play import normalise, parse_choice

ROOT = Path(__file__).resolve().parents[1]
CARDGYM = Path(sys.executable).with_name("cardgym")
PROMPT = r"Your move \(1-(\d+), a name, \? or q\): "
OPTION_1 = re.compile(r"^\s+1\) (.+?)(?:\s{2,}\d+\) .*)?\r?$", re.M)


def ascii_name(name: str) -> str:
    """How a user without suit symbols types an action name: ``select 10♦`` → ``SELECT Td``."""
    for sym, letter in zip("♣♦♥♠", "cdhs", strict=True):
        name = name.replace(sym, letter)
    return re.sub(r"\b10([cdhs])", r"T\1", name).upper()


EOF = "<Ctrl-D>"
INTERRUPT = "<Ctrl-C>"
"""Scripted answers that are keys rather than text: the end of the input and an interrupt."""


def drive(args: list[str], answers: list[str] | None = None, by_name: bool = False) -> tuple[int, str, list[int]]:
    """Run ``cardgym play ARGS``; at each prompt type the next scripted answer (or press Ctrl-D / Ctrl-C for
    :data:`EOF` / :data:`INTERRUPT`), then the first legal option (its number, or with ``by_name`` its name typed in
    ASCII). Returns the exit status, the whole output and the number of options shown at each prompt. The command
    starts with SIGINT ignored, as a program a shell starts in the background does: Ctrl-C must still stop it."""
    assert CARDGYM.exists(), f"{CARDGYM} not installed (pip install -e .)"
    child = pexpect.spawn(str(CARDGYM), ["play", *args], cwd=str(ROOT), encoding="utf-8", timeout=60,
                          dimensions=(50, 200), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    out = io.StringIO()
    child.logfile_read = out
    answers = list(answers or [])
    shown = []
    while child.expect([PROMPT, pexpect.EOF]) == 0:
        shown.append(int(child.match.group(1)))
        if answers:
            answer = answers.pop(0)
            if answer == EOF:
                child.sendeof()
            elif answer == INTERRUPT:
                child.sendintr()
            else:
                child.sendline(answer)
        elif by_name:
            child.sendline(ascii_name(OPTION_1.findall(child.before)[-1]))
        else:
            child.sendline("1")
    child.close()
    return child.exitstatus, out.getvalue().replace("\r\n", "\n"), shown


def test_play_tripoli_whole_game_bad_input_hint_and_summary(tmp_path):
    log = tmp_path / "game.jsonl"
    status, out, shown = drive(["tripoli", "--players", "4", "--opponents", "heuristic", "--seat", "0", "--seed",
                                "3", "--log", str(log)], answers=["xyz", "99", "", "1"])
    assert status == 0, out
    # The bad answers were refused with a hint, and the same choice was asked again (nothing changed).
    assert "'xyz' is not one of your options: type a number from 1 to" in out
    assert "99 is not one of your options" in out and "Please choose an action" in out
    assert shown[0] == shown[1] == shown[2] == shown[3]
    # Only player_0's view: the bots' secret poker selections are not shown, the table is seen by player_0.
    assert "your hand (player_0)" in out
    assert re.search(r"player_[123]: select [^(]", out) is None and "select (hidden)" in out
    assert "Summary of deal 1: chips won this deal" in out and "*** Game over" in out
    summary = out[out.index("Summary of deal 1"):]
    assert all(f"player_{s}" in summary for s in range(4)) and "player_0 (you)" in summary
    # The log holds the game exactly: every accepted answer is one of player_0's steps, and it replays.
    (game,) = read_log(log)
    assert sum(s["seat"] == 0 for s in game.steps) == len(shown) - 3
    replay(game)
    assert game.result is not None


@pytest.mark.parametrize(("game", "players"), [("triolet", 4), ("flipflop", 3)])
def test_play_whole_game_typing_action_names(game, players):
    status, out, shown = drive([game, "--players", str(players), "--opponents", "heuristic", "--seed", "1"],
                               by_name=True)
    assert status == 0, out
    assert shown and "is not one of your options" not in out  # every typed name was understood
    assert "Summary of deal 1" in out and "*** Game over" in out


def test_play_several_games_in_a_row_and_random_opponents():
    status, out, _ = drive(["flipflop", "--players", "2", "--opponents", "random", "--seed", "5", "--deals", "2",
                            "--seat", "1"])
    assert status == 0, out
    assert "Game 2 of 2" in out and "Total over 2 games" in out and "you are player_1" in out


def test_play_quit_leaves_the_table_and_any_agent_class_plays(tmp_path):
    log = tmp_path / "left.jsonl"
    status, out, _ = drive(["triolet", "--players", "3", "--opponents", "agents.random_agent:RandomAgent", "random",
                            "--seed", "2", "--log", str(log)], answers=["1", "q"])
    assert status == 0 and "You left the table." in out and "Game over" not in out
    assert "player_1 is agents.random_agent:RandomAgent, player_2 is random" in out
    (game,) = read_log(log)  # the game so far: no result line, and it still replays
    assert game.result is None and "stops before the end" in game.text()
    assert sum(s["seat"] == 0 for s in game.steps) == 1
    replay(game)


@pytest.mark.parametrize(("args", "message"), [
    (["tripoli", "--players", "4", "--seat", "4"], "--seat must be a seat 0..3"),
    (["tripoli", "--players", "12"], "num_players=12 is not allowed"),
    (["triolet", "--opponents", "nobody"], "unknown agent 'nobody'"),
    (["tripoli", "--opponents", "random", "random"], "one opponent for all bots or one per bot (3)"),
    (["flipflop", "--option", "colour=blue"], "colour"),
])
def test_play_bad_arguments_are_explained(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        cli_main(["play", *args])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_names_typed_in_ascii_or_symbols_match():
    assert normalise("select 10♦") == normalise("Select Td") == normalise("select 10d")
    assert normalise("swap hand K♦ ↔ face-up 4♣") == normalise("swap hand kd <-> face-up 4c")
    legal, names = [7, 9], ["bid 1", "bid 10"]
    assert parse_choice("2", legal, names) == 9
    assert parse_choice("BID 10", legal, names) == 9
    assert isinstance(parse_choice("3", legal, names), str) and isinstance(parse_choice("bid 2", legal, names), str)


@pytest.mark.parametrize("text", ["²", "①", "１", "٣", "1²", "9" * 5000, "-1", "+1", "1.0", "0"])
def test_only_ascii_numbers_in_range_choose_an_option(text):
    # str.isdigit() holds for '²', '①', the full-width '１' and the Arabic-Indic '٣', and int() refuses the first
    # two: none of them is an option number here; 5,000 nines are no number either (int() refuses over 4,300 digits)
    legal, names = [7, 9, 11], ["fold", "call", "raise"]
    hint = parse_choice(text, legal, names)
    assert isinstance(hint, str) and "is not one of your options" in hint and "1 to 3" in hint
    assert "\n" not in hint
    assert parse_choice(" 3 ", legal, names) == 11 and parse_choice("03", legal, names) == 11


@given(st.text())
def test_any_typed_text_is_a_legal_action_or_a_one_line_hint(text):
    legal = [3, 5, 8, 13]
    names = ["select 10♦", "select Q♠", "bid 1", "pass"]
    choice = parse_choice(text, legal, names)
    if isinstance(choice, int):
        assert choice in legal
    else:  # what was typed is quoted with its control characters escaped: the hint stays one line
        assert len(choice.splitlines()) == 1 and "type a number from 1 to 4" in choice


def test_play_unicode_digits_are_asked_again_and_ctrl_d_leaves(tmp_path):
    log = tmp_path / "game.jsonl"
    status, out, shown = drive(["tripoli", "--players", "3", "--opponents", "random", "--seed", "4", "--log",
                                str(log)], answers=["²", "①", EOF])
    assert status == 0, out
    assert "'²' is not one of your options" in out and "'①' is not one of your options" in out
    assert len(shown) == 3 and shown[0] == shown[1] == shown[2]  # asked again, nothing changed
    assert "You left the table." in out and "Traceback" not in out
    (game,) = read_log(log)  # the game so far, no step of player_0
    assert game.result is None and not any(s["seat"] == 0 for s in game.steps)


def test_play_ctrl_c_leaves_the_table_cleanly():
    status, out, shown = drive(["flipflop", "--players", "2", "--opponents", "random", "--seed", "2"],
                               answers=[INTERRUPT])
    assert status == 0, out
    assert len(shown) == 1 and "You left the table." in out and "Traceback" not in out


def test_play_log_overwrites_an_earlier_file_only_with_force(tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_text("an earlier game\n")
    status, out, shown = drive(["triolet", "--players", "3", "--seed", "2", "--log", str(log)])
    assert status == 2 and shown == [] and "already exists; choose another name or add --force" in out
    assert log.read_text() == "an earlier game\n"
    status, out, _ = drive(["triolet", "--players", "3", "--seed", "2", "--log", str(log), "--force"],
                           answers=["q"])
    assert status == 0 and "You left the table." in out
    (game,) = read_log(log)
    assert game.header["seed"] == 2
