"""The ``cardgym`` command as a whole: ``--help`` of every command, bad input answered with one line and exit status 2
(never a traceback), outputs checked before any work, and output cut short by a closed pipe."""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.ppo import model_metadata
from envs.aec import CardGymEnv
from envs.registry import make_game
from tests.input_helpers import cli_refused
from training import cli_args, cmd_eval, cmd_play, cmd_random
from training.cli import COMMANDS, main
from training.limits import MAX_DEALS, MAX_DELAY, MAX_STEPS

ROOT = Path(__file__).resolve().parents[1]
CARDGYM = Path(sys.executable).with_name("cardgym")


def run_cardgym(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """The installed ``cardgym`` command, run as a user runs it."""
    assert CARDGYM.exists(), f"{CARDGYM} not installed (pip install -e .)"
    kwargs = {"capture_output": True, "text": True, "timeout": 120, "cwd": ROOT, **kwargs}
    return subprocess.run([str(CARDGYM), *args], **kwargs)




def a_log(path: Path) -> Path:
    """A one-game Le triolet log played by random legal moves."""
    env = CardGymEnv(make_game("triolet", 3), log_path=path)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    env.close()
    return path


def meta_only_model(path: Path) -> Path:
    """A model zip holding only the ``cardgym.json`` a real 4-player Tripoli model records, and no policy."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("cardgym.json", json.dumps(model_metadata(make_game("tripoli", num_players=4))))
    return path


# ----- --help ----------------------------------------------------------------------------------------------------
def test_cardgym_help_lists_every_command() -> None:
    done = run_cardgym("--help")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("usage: cardgym")
    assert all(name in done.stdout for name in COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help(command: str, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert out.startswith(f"usage: cardgym {command}") and "--help" in out


# ----- bad input: one line, exit status 2 ------------------------------------------------------------------------
LEAGUE = ["league", "--game", "tripoli", "--players", "4", "--agents", "random", "heuristic", "tight", "aggressive",
          "longsuit", "--deals", "40", "--quiet"]
HUGE = "1" + "0" * 30
"""A count past every bound (numpy cannot even make an array of it)."""

BAD = [
    ([], "the following arguments are required"),
    (["poker"], "invalid choice: 'poker'"),
    (["random", "--tables", "-1"], "argument --tables: must be an integer from 1 to 65,536, got '-1'"),
    (["random", "--tables", "65537"], "argument --tables: must be an integer from 1 to 65,536, got '65537'"),
    (["random", "--tables", "1.5"], "argument --tables: must be an integer, got '1.5'"),
    (["random", "--players", "1"], "num_players=1 is not allowed"),
    (["random", "--seed", "-1"], "argument --seed: must be an integer from 0 to 2**64 - 1"),
    (["random", "--seed", str(2**64)], "argument --seed: must be an integer from 0 to 2**64 - 1"),
    (["random", "--game", "poker"], "argument --game: invalid choice: 'poker'"),
    (["random", "--option", "colour=red"], "unknown option(s) colour"),
    (["random", "--option", "max_bid=²"], "option max_bid takes an integer, got '²'"),
    (["eval", "--agents", "random"], "needs 4 agents (one per seat), got 1"),
    (["eval", "--agents", *["random"] * 4, "--deals", "0"], "argument --deals: must be an integer from 1 to 10,0"),
    (["eval", "--agents", *["random"] * 4, "--deals", HUGE], "argument --deals: must be an integer from 1 to 10,0"),
    (["eval", "--agents", *["random"] * 4, "--batch-size", "100000"], "--batch-size: must be an integer from 1 to 65,"),
    (["eval", "--agents", *["random"] * 4, "--workers", "1000"], "--workers: must be an integer from 1 to 256"),
    (["eval", "--agents", *["random"] * 4, "--seed", str(2**64)], "argument --seed: must be an integer from 0 to 2**"),
    (["eval", "--agents", *["random"] * 4, "--deals", "many"], "argument --deals: must be an integer"),
    (["eval", "--agents", *["random"] * 4, "--batch-size", "2"], "--batch-size must be at least the number of"),
    (["eval", "--agents", *["random"] * 4, "--seed", "-3"], "argument --seed: must be an integer from 0"),
    (["eval", "--agents", *["random"] * 4, "--baseline", "nobody"], "unknown agent 'nobody'"),
    (["eval", "--agents", *["random"] * 4, "--option", "oops"], "an option is written key=value"),
    (["eval", "--agents", "random", "ppo:missing.zip", "random", "random"], "model file 'missing.zip' not found"),
    (["eval", "--players", "12", "--agents", "random"], "num_players=12 is not allowed"),
    (["eval", "--agents", *["random"] * 4, "--out", "{file}/results"], "is a file, not a folder"),
    (["train", "--minutes", "-1"], "minutes must be a number in [0, 100000.0], got -1.0"),
    (["train", "--minutes", "nan"], "minutes must be a number in [0, 100000.0], got nan"),
    (["train", "--minutes", "inf"], "minutes must be a number in [0, 100000.0], got inf"),
    (["train", "--decisions", "0"], "decisions must be an integer from 1 to 1,000,000,000,000"),
    (["train", "--decisions", HUGE], "decisions must be an integer from 1 to 1,000,000,000,000"),
    (["train", "--tables", "-4"], "ppo.tables must be an integer from 1 to 65,536"),
    (["train", "--tables", "1000000"], "ppo.tables must be an integer from 1 to 65,536"),
    (["train", "--eval-every", "-1"], "eval_every must be an integer from 0 to 1,000,000,000,000"),
    (["train", "--eval-deals", "0"], "eval_deals must be an integer from 1 to 10,000,000"),
    (["train", "--final-deals", "-5"], "final_deals must be an integer from 0 to 10,000,000"),
    (["train", "--eval-every", HUGE], "eval_every must be an integer from 0 to 1,000,000,000,000"),
    (["train", "--engine", "rllib:257"], "engine must be cardgym, rllib or rllib:N (N env runners from 1 to 64)"),
    (["train", "--opponents", "styles:1000000000000=1"], "styles:N needs a number of players N from 1 to 64"),
    (["train", "--opponents", "heuristic,careless-bots:65=2"], "careless-bots:N needs a number of players N from 1 "
                                                                "to 64"),
    (["train", "--learning-rate", "2"], "ppo.learning_rate must be a number in [0, 1], got 2.0"),
    (["train", "--ent-coef", "-0.1"], "ppo.ent_coef must be a number in [0, 100], got -0.1"),
    (["train", "--imitate", "-1"], "imitate must be an integer from 0 to 1,000,000,000,000"),
    (["train", "--seed", str(2**32)], "seed must be an integer from 0 to 4,294,967,295"),
    (["train", "--players", "12"], "players must be an integer from 2 to 8"),
    (["train", "--resume", "missing.zip"], "--resume missing.zip: no such file"),
    (["train", "--magnet", "nobody"], "unknown agent 'nobody'"),
    (["train", "--out", "{file}/run"], "is a file, not a folder"),
    (["train", "--opponents", "heuristic=x"], "the weight after '=' must be a number"),
    (["train", "--opponents", "nobody"], "unknown agent 'nobody'"),
    (["train", "--recipe", "{file}"], "not TOML"),
    (["play", "tripoli", "--seat", "4"], "--seat must be a seat 0..3, got 4"),
    (["play", "tripoli", "--seat", "-1"], "--seat must be a seat 0..3, got -1"),
    (["play", "tripoli", "--deals", "0"], "argument --deals: must be an integer from 1 to 10,000,000"),
    (["play", "tripoli", "--deals", HUGE], "argument --deals: must be an integer from 1 to 10,000,000"),
    (["play", "tripoli", "--seed", str(2**64)], "argument --seed: must be an integer from 0 to 2**64 - 1"),
    (["play", "tripoli", "--players", "12"], "num_players=12 is not allowed"),
    (["play", "triolet", "--opponents", "nobody"], "unknown agent 'nobody'"),
    (["play", "tripoli", "--opponents", "random", "random"], "one opponent for all bots or one per bot (3)"),
    (["play", "tripoli", "--seed", str(2**64 - 1), "--deals", "2"], "must stay below 2**64"),
    (["play", "tripoli", "--log", "{tmp}"], "is a folder; give a file name"),
    (["play", "tripoli", "--log", "{file}/game.jsonl"], "is a file, not a folder"),
    (["play", "flipflop", "--option", "colour=blue"], "unknown option(s) colour"),
    (["play", "chess"], "argument game: invalid choice: 'chess'"),
    (["watch", "tripoli", "--deals", HUGE], "argument --deals: must be an integer from 1 to 10,000,000"),
    (["watch", "tripoli", "--seed", str(2**64)], "argument --seed: must be an integer from 0 to 2**64 - 1"),
    (["watch", "tripoli", "--delay", "1e10"], "argument --delay: must be a number from 0 to 60, got '1e10'"),
    ([*LEAGUE, "--seed", str(2**64)], "argument --seed: must be an integer from 0 to 2**64 - 1"),
    ([*LEAGUE, "--seed", "-1"], "argument --seed: must be an integer from 0 to 2**64 - 1"),
    ([*LEAGUE, "--deals", HUGE], "argument --deals: must be an integer from 1 to 10,000,000"),
    ([*LEAGUE, "--shard-groups", "5000"], "argument --shard-groups: must be an integer from 1 to 4,096"),
    ([*LEAGUE, "--workers", "257"], "argument --workers: must be an integer from 1 to 256"),
    ([*LEAGUE, "--players", "four"], "argument --players: must be an integer, got 'four'"),
    ([*LEAGUE, "--out", "{file}"], "is a file, not a folder"),
    ([*LEAGUE, "--out", "{file}/leagues"], "is a file, not a folder"),
    (["replay", "{tmp}/missing.jsonl"], "missing.jsonl: no such file"),
    (["replay", "{tmp}"], "is a directory, not a log file"),
    (["replay", "{file}"], "not JSON"),
    (["replay", "{log}", "--game", "0"], "argument --game: must be a positive integer"),
    (["replay", "{log}", "--game", "2"], "--game must be 1..1"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a) or "(nothing)" for a, _ in BAD])
def test_bad_input_is_one_line_and_exit_status_2(argv: list[str], message: str, tmp_path, capsys,
                                                 monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # whatever a refused command might write would land here
    (tmp_path / "notes.txt").write_text("not a folder, not a log\n")
    log = a_log(tmp_path / "game.jsonl")
    before = sorted(tmp_path.iterdir())
    argv = [a.format(tmp=tmp_path, file=tmp_path / "notes.txt", log=log) for a in argv]
    line = cli_refused(argv, capsys)
    command = f"cardgym {argv[0]}" if argv and argv[0] in COMMANDS else "cardgym"
    assert line.startswith(f"{command}: error: ") and message in line, line
    assert sorted(tmp_path.iterdir()) == before  # nothing written: no results, no run folder, no log


@pytest.mark.parametrize("argv", [
    ["random", "--tables", "0"],
    ["eval", "--agents", "random", "random", "--players", "3"],
    ["train", "--minutes", "-1"],
    ["play", "tripoli", "--seat", "9"],
    ["replay", "missing.jsonl"],
    ["serve", "--game", "tripoli", "--opponents", "nobody"],
])
def test_the_installed_command_refuses_without_a_traceback(argv: list[str], tmp_path) -> None:
    done = run_cardgym(*argv, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"cardgym {argv[0]}: error: ")


@pytest.mark.parametrize("command", ["eval", "play"])
def test_a_model_file_without_a_policy_is_one_line(command: str, tmp_path, capsys) -> None:
    model = meta_only_model(tmp_path / "meta_only.zip")
    argv = {"eval": ["eval", "--agents", f"ppo:{model}", "random", "random", "random", "--deals", "4", "--no-save"],
            "play": ["play", "tripoli", "--opponents", f"ppo:{model}"]}[command]
    line = cli_refused(argv, capsys)
    assert line.startswith(f"cardgym {command}: error: ") and "meta_only.zip" in line, line


NUMBER_TYPES = [
    (cli_args.integer, lambda v: True),
    (cli_args.positive_int, lambda v: v >= 1),
    (cli_args.count(MAX_DEALS), lambda v: 1 <= v <= MAX_DEALS),
    (cli_args.count(MAX_STEPS, low=0), lambda v: 0 <= v <= MAX_STEPS),
    (cli_args.seed_int, lambda v: 0 <= v < 2**64),
    (cli_args.seed32_int, lambda v: 0 <= v < 2**32),
    (cli_args.non_negative_float, lambda v: math.isfinite(v) and v >= 0),
    (cli_args.number_upto(MAX_DELAY), lambda v: 0 <= v <= MAX_DELAY),
]


@settings(max_examples=300)
@given(st.one_of(st.text(), st.integers().map(str), st.floats().map(str),
                 st.sampled_from(["²", "①", "1e999", "-0", "0x10", "1_000", " 7 ", "9" * 5000, "nan", "-inf"])))
def test_number_arguments_give_a_value_in_range_or_their_own_one_line_refusal(text: str) -> None:
    for kind, in_range in NUMBER_TYPES:
        try:
            value = kind(text)
        except argparse.ArgumentTypeError as e:
            assert str(e).startswith("must be ") and str(e).endswith(f"got {text!r}") and "\n" not in str(e)
        else:
            assert in_range(value), (kind.__name__, text, value)


# ----- what main() turns into one line, and what it leaves alone ------------------------------------------------
def raising(error: BaseException):
    def make_game(*args, **kwargs):
        raise error
    return make_game


def test_errors_of_the_project_are_one_line_and_bugs_keep_their_traceback(capsys, monkeypatch) -> None:
    from agents.ppo import ModelFileError
    from envs.core.config import ConfigError
    from envs.gamelog import LogError

    for error in (ConfigError("a\nb"), ModelFileError("m.zip: not a model"), LogError("g.jsonl, line 3: bad")):
        monkeypatch.setattr(cmd_random, "make_game", raising(error))
        line = cli_refused(["random"], capsys)
        assert line == f"cardgym random: error: {' '.join(str(error).splitlines())}"
    monkeypatch.setattr(cmd_random, "make_game", raising(FileNotFoundError(2, "No such file or directory", "x.zip")))
    assert cli_refused(["random"], capsys) == "cardgym random: error: x.zip: No such file or directory"
    # A plain ValueError (numpy's, or an unchecked argument deep inside) is a bug: it is not hidden.
    for bug in (ValueError("operands could not be broadcast together"), KeyError("seat"), OSError("no file named")):
        monkeypatch.setattr(cmd_random, "make_game", raising(bug))
        with pytest.raises(type(bug)):
            main(["random"])


def test_ctrl_c_is_one_line_and_status_130(capsys, monkeypatch) -> None:
    monkeypatch.setattr(cmd_random, "make_game", raising(KeyboardInterrupt()))
    with pytest.raises(SystemExit) as exc:
        main(["random"])
    assert exc.value.code == 130 and capsys.readouterr().err.strip() == "cardgym random: interrupted"


# ----- outputs are checked before the work ------------------------------------------------------------------------
def no_work(*args, **kwargs):
    raise AssertionError("the command started its work although its output was refused")


EVAL = ["eval", "--game", "triolet", "--players", "3", "--agents", "heuristic", "random", "random", "--deals", "30"]
EVAL_STEM = "eval_triolet_3p_heuristic-random-random"


@pytest.mark.parametrize("existing", [".json", ".png"])
def test_eval_refuses_an_existing_result_before_playing(existing: str, tmp_path, capsys, monkeypatch) -> None:
    kept = tmp_path / f"{EVAL_STEM}{existing}"
    kept.write_text("an earlier evaluation")
    monkeypatch.setattr(cmd_eval, "evaluate", no_work)
    monkeypatch.setattr(cmd_eval, "make_agent", no_work)
    line = cli_refused(EVAL + ["--out", str(tmp_path)], capsys)
    assert f"--out {kept} already exists" in line and "--force" in line
    assert kept.read_text() == "an earlier evaluation"
    assert [p.name for p in tmp_path.iterdir()] == [kept.name]


def test_eval_force_overwrites_and_no_save_writes_nothing(tmp_path, capsys, monkeypatch) -> None:
    (tmp_path / f"{EVAL_STEM}.json").write_text("an earlier evaluation")
    main(EVAL + ["--out", str(tmp_path), "--no-plot", "--force"])
    assert f"wrote {tmp_path / EVAL_STEM}.json" in capsys.readouterr().out
    assert json.loads((tmp_path / f"{EVAL_STEM}.json").read_text())["episodes"] == 30
    monkeypatch.chdir(tmp_path)
    main(EVAL + ["--no-save"])
    assert "wrote" not in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{EVAL_STEM}.json"]


def test_play_refuses_an_existing_log_before_dealing(tmp_path, capsys, monkeypatch) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text("an earlier game\n")
    monkeypatch.setattr(cmd_play, "make_bots", no_work)
    monkeypatch.setattr(cmd_play, "open_table", no_work)
    line = cli_refused(["play", "tripoli", "--log", str(log)], capsys)
    assert f"--log {log} already exists" in line and "--force" in line
    assert log.read_text() == "an earlier game\n"


# ----- a closed pipe (cardgym ... | head) -----------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["random", "--tables", "8"],
    ["eval", "--game", "triolet", "--players", "3", "--agents", "random", "random", "random", "--deals", "3",
     "--no-save"],
    ["replay", "{log}"],
    ["--help"],
])
def test_output_into_a_closed_pipe_ends_quietly(argv: list[str], tmp_path) -> None:
    argv = [a.format(log=a_log(tmp_path / "game.jsonl")) for a in argv]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has already left: every write fails with EPIPE
    try:
        done = run_cardgym(*argv, stdout=write_end, capture_output=False, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert done.stderr == "" and done.returncode in (0, 1)


def test_random_piped_into_head(tmp_path) -> None:
    done = subprocess.run(f"{CARDGYM} random --game flipflop --tables 64 | head -1", shell=True,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("64 random flipflop games, 4 players: ")
