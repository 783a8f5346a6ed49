"""Game logs as untrusted data (envs/gamelog.py, envs/logcheck.py, ``cardgym replay``): a forged claim of any kind
is caught by ``verify`` naming its line; a malformed file is refused with one line naming the line and the problem;
a log that stops early is incomplete; random corruptions give a one-line LogError or a log the game reproduces
exactly; the CLI's exit status says which (0 verified, 1 not verified, 2 not a log), never with a traceback."""

from __future__ import annotations

import copy
import importlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.aec import CardGymEnv
from envs.core.cards import card_str
from envs.core.game import BatchedGame
from envs.gamelog import GameLog, GameRecorder, LogError, VerifyError, first_deck, read_log, replay, verify
from envs.registry import make_game
from training.cli import main as cli_main

# (game, players, options) of the recorded games: every game, deals that end and deals that follow.
GAMES = {
    "tripoli": ("tripoli", 3, {"num_deals": 2}),
    "triolet": ("triolet", 3, {}),
    "flipflop": ("flipflop", 3, {"num_deals": 2}),
}


def record(name: str, seed: int) -> list[dict[str, Any]]:
    """The lines of one game of ``GAMES[name]`` played by seeded random legal actions, as written to a file."""
    game_name, n, options = GAMES[name]
    env = CardGymEnv(make_game(game_name, n, **options))
    env.recorder = GameRecorder(None)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not bool(env.state_.done[0]):
        env.step(int(rng.choice(env.legal_actions())))
    return json.loads(json.dumps(env.recorder.lines))


@pytest.fixture(scope="module")
def recorded() -> dict[str, list[dict[str, Any]]]:
    return {name: record(name, seed) for seed, name in enumerate(GAMES, 21)}


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``cardgym <argv>``."""
    try:
        cli_main(argv)
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value (1 and 1.0 are one JSON number), a boolean only equals a boolean."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def game_of(lines: list[dict[str, Any]]) -> BatchedGame:
    h = lines[0]
    return make_game(h["game"], h["num_players"], **h["options"])


def mask_before(lines: list[dict[str, Any]], index: int) -> np.ndarray:
    """The legal-action mask when the step at ``lines[index]`` is taken (the core replayed up to it)."""
    h, game = lines[0], game_of(lines)
    state = game.init(h["seed"], 1, dealers=np.asarray([h["dealer"]]))
    for line in lines[1:index]:
        if line["type"] == "step":
            game.step(state, np.asarray([line["action"]]))
    return state.legal_action_mask[0].copy()


def first(lines: list[dict[str, Any]], kind: str, test: Callable[[dict[str, Any]], bool] = lambda line: True) -> int:
    return next(i for i, line in enumerate(lines) if line["type"] == kind and test(line))


# ----- forged claims: each returns the index of the forged line and what the message must name ------------------------
def forge_seat(lines, game):
    i = first(lines, "step")
    lines[i]["seat"] = (lines[i]["seat"] + 1) % game.num_players
    return i, "to act"


def forge_action_illegal(lines, game):
    i = first(lines, "step")
    lines[i]["action"] = int(np.flatnonzero(~mask_before(lines, i))[0])
    return i, "is not legal"


def forge_action_other_legal(lines, game):
    i = first(lines, "step", lambda s: True)
    while True:  # the first step where another action was legal: the replay then names a different action
        legal = np.flatnonzero(mask_before(lines, i))
        if legal.size > 1:
            break
        i = first(lines[i + 1:], "step") + i + 1
    lines[i]["action"] = int(next(a for a in legal if a != lines[i]["action"]))
    return i, "name is"


def forge_name(lines, game):
    i = first(lines, "step")
    lines[i]["name"] = game.action_name((lines[i]["action"] + 1) % game.num_actions)
    return i, "name is"


def forge_secret(lines, game):
    i = first(lines, "step")
    lines[i]["secret"] = not lines[i]["secret"]
    return i, "secret is"


def forge_step_rewards(lines, game):
    i = first(lines, "step")
    lines[i]["rewards"][0] += 1.0
    return i, "rewards[0] is"


def forge_step_number(lines, game):
    i = first(lines, "step", lambda s: s["n"] == 2)
    lines[i]["n"] = 3
    return i, "n is 3 in the log, the replay has 2"


def forge_event_text(lines, game):
    i = first(lines, "step", lambda s: bool(s["events"]))
    lines[i]["events"][0]["text"] += " and an ace"
    return i, "events[0].text is"


def forge_forced_added(lines, game):
    """C8: a forced move the game did not make."""
    i = first(lines, "step")
    lines[i]["forced"].append({"seat": 0, "action": 0, "name": game.action_name(0), "secret": False})
    return i, "forced"


def forge_event_dropped(lines, game):
    i = first(lines, "step", lambda s: bool(s["events"]))
    del lines[i]["events"][0]
    return i, "events"


def forge_event_added(lines, game):
    i = first(lines, "step")
    lines[i]["events"].append({"field": "pile", "added": [12], "removed": [], "text": "pile: A♣"})
    return i, "events"


def forge_extra_key(lines, game):
    i = first(lines, "step")
    lines[i]["comment"] = "a brilliant move"
    return i, "comment is not in the replay"


def forge_deal_dealer(lines, game):
    i = first(lines, "deal")
    lines[i]["dealer"] = (lines[i]["dealer"] + 1) % game.num_players
    return i, "dealer is"


def forge_deal_events(lines, game):
    i = first(lines, "deal")
    lines[i]["events"].append({"field": "pile", "added": [12], "removed": [], "text": "pile: A♣"})
    return i, "events"


def forge_deal_end_returns(lines, game):
    i = first(lines, "deal_end")
    lines[i]["returns"][0] += 1.0
    return i, "returns[0] is"


def forge_shown(lines, game):
    i = first(lines, "deal_end")
    shown = lines[i]["shown"].setdefault("0", [])
    shown.append(next(c for c in range(52) if c not in shown))
    shown.sort()
    return i, "shown"


def forge_deal_end_text(lines, game):
    i = first(lines, "deal_end")
    lines[i]["text"] = "player_0 +100"
    return i, "text is"


def forge_result_returns(lines, game):
    i = first(lines, "result")
    lines[i]["returns"][1] -= 1.0
    return i, "returns[1] is"


def forge_result_terminated(lines, game):
    i = first(lines, "result")
    lines[i]["terminated"] = not lines[i]["terminated"]
    return i, "terminated is"


def forge_result_steps(lines, game):
    i = first(lines, "result")
    lines[i]["steps"] += 1
    return i, "steps is"


def forge_deck(lines, game):
    deck = lines[0]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    return 0, "must be the one seed"


def forge_deck_cards(lines, game):
    cards = lines[0]["deck_cards"]
    cards[0], cards[-1] = cards[-1], cards[0]
    return 0, "deck_cards[0] is"


def forge_seed(lines, game):
    lines[0]["seed"] += 1
    return 0, "must be the one seed"


def forge_stacked(lines, game):
    lines[0]["stacked"] = True
    return 0, "not a stacked deck"


def forge_header_rewards(lines, game):
    lines[0]["rewards"][0] += 1.0
    return 0, "rewards[0] is"


def forge_option_dropped(lines, game):
    del lines[0]["options"][next(iter(lines[0]["options"]))]
    return 0, "is missing"


def forge_stacked_other_deck(lines, game):
    """A deck edited (and declared stacked) under a game it did not deal: the public events no longer follow."""
    deck = first_deck(game, lines[0]["seed"] + 1)
    names = [card_str(int(c), True) for c in deck]
    lines[0].update(stacked=True, deck=deck.tolist(), deck_cards=names)
    return None, ""


FORGERIES = {f.__name__.removeprefix("forge_"): f for f in [
    forge_seat, forge_action_illegal, forge_action_other_legal, forge_name, forge_secret, forge_step_rewards,
    forge_step_number, forge_event_text, forge_event_dropped, forge_event_added, forge_extra_key, forge_deal_dealer,
    forge_deal_events, forge_deal_end_returns, forge_shown, forge_deal_end_text, forge_result_returns,
    forge_result_terminated, forge_result_steps, forge_deck, forge_deck_cards, forge_seed, forge_stacked,
    forge_header_rewards, forge_option_dropped, forge_stacked_other_deck, forge_forced_added]}


@pytest.mark.parametrize("kind", list(FORGERIES))
@pytest.mark.parametrize("name", list(GAMES))
def test_verify_catches_every_forged_claim(recorded, tmp_path, capsys, name, kind):
    lines = copy.deepcopy(recorded[name])
    index, what = FORGERIES[kind](lines, game_of(recorded[name]))
    path = write(tmp_path / "forged.jsonl", lines)
    (log,) = read_log(path)  # well formed: only the replay can tell
    with pytest.raises(VerifyError) as e:
        verify(log)
    message = str(e.value)
    assert "\n" not in message and what in message
    if index is None:
        assert re.match(rf"{re.escape(str(path))}, line ([2-9]|\d\d+)\b", message), message
    else:
        assert message.startswith(f"{path}, line {index + 1}"), message
    code, out, err = run_cli(["replay", str(path), "--verify"], capsys)
    assert code == 1 and err.count("\n") == 1 and message in err and "verified" not in out


@pytest.mark.parametrize("name", list(GAMES))
def test_recorded_logs_verify_and_replay_identically(recorded, tmp_path, capsys, name):
    path = write(tmp_path / "good.jsonl", recorded[name])
    (log,) = read_log(path)
    game, state, rewards = verify(log)
    assert bool(state.terminated[0] | state.truncated[0]) and len(rewards) == len(log.steps)
    assert np.allclose(log.header["rewards"] + np.sum(rewards, axis=0), log.result["returns"])
    code, out, err = run_cli(["replay", str(path), "--verify"], capsys)
    assert code == 0 and err == "" and out.count("verified:") == 1


def delete_a_step(lines, game):
    i = first(lines, "step", lambda s: s["n"] == 3)
    del lines[i]
    return i, ""  # the line after it now stands at its place


@pytest.mark.parametrize("forge", [forge_action_illegal, forge_action_other_legal, delete_a_step],
                         ids=["illegal action", "another legal action", "a step deleted"])
@pytest.mark.parametrize("name", list(GAMES))
def test_the_html_page_refuses_a_forged_log_naming_the_line_verify_names(recorded, tmp_path, capsys, name, forge):
    lines = copy.deepcopy(recorded[name])
    index, _ = forge(lines, game_of(recorded[name]))
    path = write(tmp_path / "forged.jsonl", lines)
    code, _, verified = run_cli(["replay", str(path), "--verify"], capsys)
    page = tmp_path / "page.html"
    code_html, out, err = run_cli(["replay", str(path), "--html", str(page)], capsys)
    assert code == code_html == 1 and err == verified and err.count("\n") == 1, err
    assert err.startswith(f"cardgym replay: verification failed: {path}, line {index + 1} "), err
    assert not page.exists() and "wrote" not in out


# ----- a log that stops early -----------------------------------------------------------------------------------------
def test_truncated_log_is_incomplete(recorded, tmp_path, capsys):
    lines = recorded["flipflop"]
    cut = first(lines, "step", lambda s: s["n"] == 5)
    path = write(tmp_path / "cut.jsonl", lines[: cut + 1])
    (log,) = read_log(path)
    assert log.result is None
    _, state, rewards = replay(log)  # replays as far as it goes
    assert len(rewards) == 5 and not bool(state.terminated[0] | state.truncated[0])
    with pytest.raises(VerifyError, match=rf"line {cut + 1}: incomplete log"):
        verify(log)
    code, out, err = run_cli(["replay", str(path)], capsys)
    assert code == 0 and "the log stops before the end of the game" in out and err == ""
    code, out, err = run_cli(["replay", str(path), "--verify"], capsys)
    assert code == 1 and err.count("\n") == 1 and f"line {cut + 1}: incomplete log" in err
    # The page of a game cut short goes as far as the log; with --verify the log must reach the end, and no page.
    code, out, err = run_cli(["replay", str(path), "--html", str(tmp_path / "cut.html")], capsys)
    assert code == 0 and err == "" and (tmp_path / "cut.html").exists()
    code, out, err = run_cli(["replay", str(path), "--html", str(tmp_path / "cut2.html"), "--verify"], capsys)
    assert code == 1 and f"line {cut + 1}: incomplete log" in err and not (tmp_path / "cut2.html").exists()
    # Without its deal_end and result lines a finished game is incomplete too.
    path = write(tmp_path / "no_end.jsonl", lines[:-2])
    with pytest.raises(VerifyError, match="incomplete log"):
        verify(read_log(path)[0])
    # A last line cut in the middle is not JSON.
    path.write_text("".join(json.dumps(x) + "\n" for x in lines[:cut]) + json.dumps(lines[cut])[:30])
    with pytest.raises(LogError, match=rf"line {cut + 1}: not JSON"):
        read_log(path)


# ----- malformed files -----------------------------------------------------------------------------------------------
def edit(index: int, change: Callable[[dict[str, Any]], Any]) -> Callable[[list[Any]], list[Any]]:
    """A corruption of ``lines[index]`` (a negative index counts from the end) by ``change`` (in place)."""
    def apply(lines: list[Any]) -> list[Any]:
        change(lines[index])
        return lines
    return apply


def step_index(lines: list[Any]) -> int:
    return first(lines, "step")


def on_step(change: Callable[[dict[str, Any]], Any]) -> Callable[[list[Any]], list[Any]]:
    def apply(lines: list[Any]) -> list[Any]:
        change(lines[step_index(lines)])
        return lines
    return apply


def dumps(lines: list[Any]) -> bytes:
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode()


def text_edit(change: Callable[[list[bytes]], list[bytes]]) -> Callable[[list[Any]], bytes]:
    return lambda lines: b"\n".join(change(dumps(lines).split(b"\n")))


def first_reward(raw: bytes, number: bytes) -> bytes:
    """A step line's bytes with its first reward written as ``number``."""
    assert b'"type": "step"' in raw
    return re.sub(rb'"rewards": \[[^,\]]+', b'"rewards": [' + number, raw, count=1)


def dup_key(raw: list[bytes]) -> list[bytes]:
    raw[2] = raw[2][:-1] + b', "type": "step"}'
    return raw


# name → (corruption of the valid lines: returns lines or raw bytes; the line the message names: an index into the
# corrupted lines (negative from the end), "step" for the first step, None for the file itself; what it says)
MALFORMED: dict[str, tuple[Callable[[list[Any]], Any], int | str | None, str]] = {
    "empty file": (lambda lines: b"", None, "empty"),
    "blank lines only": (lambda lines: b"\n  \n\n", None, "empty"),
    "binary junk": (lambda lines: bytes(range(255, -1, -1)) * 4, 0, "not UTF-8 text (byte 0xff at column 1)"),
    "latin-1 text": (text_edit(lambda raw: raw[:2] + ["{\"type\": \"d\xe9al\"}".encode("latin-1")] + raw[2:]), 2,
                     "not UTF-8"),
    "not JSON": (text_edit(lambda raw: raw[:3] + [b"step 4: player_1 draws"] + raw[3:]), 3, "not JSON"),
    "cut line": (text_edit(lambda raw: raw[:2] + [raw[2][:20]] + raw[3:]), 2, "not JSON"),
    "NUL bytes": (text_edit(lambda raw: raw[:1] + [b"\x00\x00\x00"] + raw[1:]), 1, "not JSON"),
    "NaN": (text_edit(lambda raw: raw[:2] + [first_reward(raw[2], b"NaN")] + raw[3:]), 2, "NaN is not a JSON number"),
    "key twice": (text_edit(dup_key), 2, "appears twice"),
    "integer of 5000 digits": (text_edit(lambda raw: [raw[0].replace(b'"seed": ', b'"seed": ' + b"9" * 5000)]
                                         + raw[1:]), 0, "not a valid log line"),
    "deeply nested": (text_edit(lambda raw: raw[:1] + [b"[" * 100_000 + b"]" * 100_000] + raw[1:]), 1,
                      "not a valid log line"),
    "not an object": (lambda lines: lines[:1] + [[1, 2, 3]] + lines[1:], 1, "a log line is a JSON object"),
    "no header": (lambda lines: lines[1:], 0, "must start with a 'game' line"),
    "unknown type": (edit(1, lambda d: d.update(type="bet")), 1, "unknown line"),
    "no type": (edit(1, lambda d: d.pop("type")), 1, "no 'type'"),
    "missing key": (on_step(lambda s: s.pop("rewards")), "step", "needs 'rewards'"),
    "seat as text": (on_step(lambda s: s.update(seat="1")), "step", "'seat' must be a seat"),
    "negative seat": (on_step(lambda s: s.update(seat=-1)), "step", "'seat' must be a seat 0..2, got an integer -1"),
    "huge seat": (on_step(lambda s: s.update(seat=10**30)), "step", "'seat' must be a seat"),
    "bool seat": (on_step(lambda s: s.update(seat=True)), "step", "got a boolean"),
    "action out of range": (on_step(lambda s: s.update(action=100_000)), "step", "'action' must be an action id"),
    "reward infinite": (text_edit(lambda raw: raw[:2] + [first_reward(raw[2], b"1e999")] + raw[3:]), 2,
                        "'rewards' must be a list of 3 finite numbers (one per seat), got a list [Infinity"),
    "reward huge integer": (on_step(lambda s: s["rewards"].__setitem__(0, 10**400)), "step", "finite numbers"),
    "rewards of 2 seats": (on_step(lambda s: s["rewards"].pop()), "step", "a list of 3 finite numbers"),
    "rewards as bools": (on_step(lambda s: s.update(rewards=[False, True, False])), "step", "finite numbers"),
    "events not a list": (on_step(lambda s: s.update(events="none")), "step", "'events' must be a list of events"),
    "event without text": (edit(1, lambda d: d["events"].append({"field": "pile"})), 1, "'events' must be"),
    "unknown game": (edit(0, lambda h: h.update(game="poker")), 0, "unknown game 'poker'"),
    "game not a string": (edit(0, lambda h: h.update(game=["flipflop"])), 0, "'game' must be a string"),
    "unknown option": (edit(0, lambda h: h["options"].update(wild_cards=True)), 0, "unknown option(s) wild_cards"),
    "bad option value": (edit(0, lambda h: h["options"].update(num_deals=-3)), 0, "num_deals=-3 is not allowed"),
    "options not an object": (edit(0, lambda h: h.update(options=[])), 0, "'options' must be an object"),
    "too many players": (edit(0, lambda h: h.update(num_players=99)), 0, "'num_players' must be a number of players"),
    "negative seed": (edit(0, lambda h: h.update(seed=-5)), 0, "'seed' must be an integer 0..18446744073709551615"),
    "seed too large": (edit(0, lambda h: h.update(seed=2**64)), 0, "'seed' must be an integer"),
    "dealer off the table": (edit(0, lambda h: h.update(dealer=3)), 0, "'dealer' must be a seat 0..2"),
    "wrong format": (edit(0, lambda h: h.update(format="cardgym-log/9")), 0, "'format' must be 'cardgym-log/3'"),
    "other env version": (edit(0, lambda h: h.update(env_version="flipflop_v0")), 0,
                          "played by 'flipflop_v0' rules; this cardgym plays 'flipflop_v1'"),
    "deck with a card twice": (edit(0, lambda h: h["deck"].__setitem__(0, h["deck"][1])), 0, "'deck' must be the 52"),
    "deck too short": (edit(0, lambda h: h["deck"].pop()), 0, "'deck' must be the 52 card ids"),
    "stacked deck not a permutation": (edit(0, lambda h: h.update(stacked=True, deck=list(range(1, 53)))), 0,
                                       "'deck' must be the 52 card ids 0..51"),
    "stacked not a bool": (edit(0, lambda h: h.update(stacked="yes")), 0, "'stacked' must be true or false"),
    "shown of a seat off the table": (edit(-2, lambda d: d.update(shown={"7": [1]})), -2, "'shown' must be"),
    "shown card out of range": (edit(-2, lambda d: d.update(shown={"0": [52]})), -2, "'shown' must be"),
    "result not a bool": (edit(-1, lambda d: d.update(terminated="true")), -1, "'terminated' must be true or false"),
    "line after the result": (lambda lines: [*lines, lines[1]], -1, "after the game's 'result'"),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_logs_get_one_line_naming_it(recorded, tmp_path, capsys, kind):
    lines = copy.deepcopy(recorded["flipflop"])
    corrupt, index, what = MALFORMED[kind]
    data = corrupt(lines)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data if isinstance(data, bytes) else dumps(data))
    with pytest.raises(LogError) as e:
        read_log(path)
    message = str(e.value)
    assert not isinstance(e.value, VerifyError)
    assert "\n" not in message and what in message, message
    if index is None:
        assert message.startswith(f"{path}: "), message
    else:
        count = len(data) if isinstance(data, list) else len(lines)
        number = step_index(lines) + 1 if index == "step" else index + 1 if index >= 0 else count + index + 1
        assert message.startswith(f"{path}, line {number}: "), message
    code, out, err = run_cli(["replay", str(path), "--verify"], capsys)
    assert code == 2 and out == "" and err == f"cardgym replay: error: {message}\n"


def test_unreadable_paths(tmp_path, capsys):
    for path, what in [(tmp_path / "missing.jsonl", "no such file"), (tmp_path, "is a directory")]:
        with pytest.raises(LogError, match=what):
            read_log(path)
        code, out, err = run_cli(["replay", str(path)], capsys)
        assert code == 2 and err.count("\n") == 1 and what in err


def test_game_log_built_in_memory_is_checked_too(recorded):
    """The API refuses bad lines whichever way a log is made, naming the line."""
    from envs.gamelog import GameLog

    lines = copy.deepcopy(recorded["triolet"])
    lines[3]["seat"] = -1
    with pytest.raises(LogError, match=r"^line 4: 'seat' must be a seat 0\.\.2"):
        GameLog(lines)


def test_cli_game_choice_and_exit_codes(recorded, tmp_path, capsys):
    path = write(tmp_path / "two.jsonl", recorded["tripoli"] + recorded["triolet"])
    code, out, err = run_cli(["replay", str(path), "--verify", "--game", "2"], capsys)
    assert code == 0 and "Le triolet" in out and "Tripoli" not in out and out.count("verified:") == 1
    code, out, err = run_cli(["replay", str(path), "--game", "3"], capsys)
    assert code == 2 and err == f"cardgym replay: error: --game must be 1..2 ({path} holds 2 games), got 3\n"
    bad = copy.deepcopy(recorded["triolet"])
    bad[-1]["returns"][0] += 1.0
    path = write(tmp_path / "second_forged.jsonl", recorded["tripoli"] + bad)
    code, out, err = run_cli(["replay", str(path), "--verify"], capsys)
    line = len(recorded["tripoli"]) + len(bad)
    assert code == 1 and out.count("verified:") == 1 and err.count("\n") == 1
    assert f"line {line}: returns[0] is" in err


# ----- random corruption ---------------------------------------------------------------------------------------------
def paths_of(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every position inside a JSON value (the value itself first)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, sub in value.items():
            out += paths_of(sub, (*prefix, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out += paths_of(sub, (*prefix, i))
    return out


def flipped(value: Any) -> Any:
    """A value of the same type that differs."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[:-1] if value else [0]
    if isinstance(value, dict):
        return {**value, "extra": 1}
    return 0


OTHER_VALUES = [None, True, False, 0, -1, 2**64, 10**400, 1.5, "", "player_0", [], [0], {}, {"type": "step"}]


def rerecord(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The test's own replay: the lines a recorder writes when the header's table plays the logged actions."""
    h = lines[0]
    game = game_of(lines)
    deck = np.asarray(h["deck"]) if h["stacked"] else None
    state = game.init(h["seed"], 1, decks=None if deck is None else deck[None, :], dealers=np.asarray([h["dealer"]]))
    recorder = GameRecorder(None)
    recorder.begin(game, state, deck, h["dealer"])
    for line in lines:
        if line["type"] == "step":
            game.step(state, np.asarray([line["action"]]))
            recorder.record(state, line["seat"], line["action"])
    return json.loads(json.dumps(recorder.lines))


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_corrupted_logs_are_refused_in_one_line_or_replay_identically(recorded, tmp_path, data):
    name = data.draw(st.sampled_from(list(GAMES)), label="game")
    lines = copy.deepcopy(recorded[name])
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    paths = paths_of(lines[index])
    top = [p for p in paths if len(p) <= 1]  # the line and its keys: half the draws, the nested values the others
    where = data.draw(st.sampled_from(top) | st.sampled_from(paths), label="path")
    how = data.draw(st.sampled_from(["drop", "retype", "flip", "drop line", "repeat line"]), label="how")
    parent = lines[index]
    for key in where[:-1]:
        parent = parent[key]
    if how == "drop line" or (how == "drop" and not where):
        del lines[index]
    elif how == "repeat line":
        lines.insert(index, copy.deepcopy(lines[index]))
    elif not where:
        lines[index] = data.draw(st.sampled_from(OTHER_VALUES), label="line value")
    elif how == "drop":
        del parent[where[-1]]
    elif how == "retype":
        parent[where[-1]] = data.draw(st.sampled_from(OTHER_VALUES), label="value")
    else:
        parent[where[-1]] = flipped(parent[where[-1]])
    path = write(tmp_path / "corrupt.jsonl", lines)
    try:
        logs = read_log(path)
        for log in logs:
            log.text()
            log._repr_html_()
            verify(log)
    except LogError as e:
        assert "\n" not in str(e) and re.search(r"line \d+", str(e)), str(e)
    else:
        assert len(logs) == 1 and same_json(rerecord(lines), lines)


def test_c8_forced_moves_are_logged_in_order_and_shown() -> None:
    """A Tripoli game's Michigan runs are forced moves: each step line lists them as the core reported them, the text
    shows each on its own line, and the log verifies."""
    lines = record("tripoli", 5)
    steps = [line for line in lines if line["type"] == "step"]
    forced = [m for line in steps for m in line["forced"]]
    assert forced and all(set(m) == {"seat", "action", "name", "secret"} for m in forced)
    assert any(m["name"].startswith("continue run (") for m in forced)
    text = GameLog(lines).text()
    assert sum(" (forced): " in row for row in text.splitlines()) == len(forced) + sum(
        len(line["forced"]) for line in lines if line["type"] == "deal")
    verify(GameLog(lines))


@pytest.mark.parametrize("name", ["tripoli", "flipflop"])
def test_c7_a_stacked_deck_for_every_deal_is_dealt_logged_and_verified(name: str) -> None:
    """``reset(options={"decks": [...]})`` stacks the first deals of a multi-deal episode: the core deals them, the
    log keeps the later ones (``later_decks``) and verifies; a log whose later deck is edited does not."""
    from envs.registry import env_version

    env = importlib.import_module(f"envs.{env_version(name)}").raw_env(num_players=3, num_deals=3)
    env.recorder = GameRecorder(None)
    rng = np.random.default_rng(2)
    decks = [rng.permutation(52).tolist() for _ in range(3)]
    env.reset(seed=4, options={"decks": decks})
    assert env.state_.decks[0].tolist() == decks
    while not bool(env.state_.done[0]):
        env.step(int(rng.choice(env.legal_actions())))
    lines = json.loads(json.dumps(env.recorder.lines))
    assert lines[0]["deck"] == decks[0] and lines[0]["later_decks"] == decks[1:]
    verify(GameLog(lines))
    lines[0]["later_decks"][0] = list(reversed(lines[0]["later_decks"][0]))
    with pytest.raises(VerifyError):
        verify(GameLog(lines))
