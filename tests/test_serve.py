"""``cardgym serve``: one seat played in the browser against bots.

- Through Flask's test client, whole games of every game: every answer the browser gets names only cards the seat
  has seen (in its hand at some point, or made public by a line of the log); the check itself is shown to fail on a
  hidden card.
- Bad moves (not legal, not an integer, an out-of-date page, not JSON, a new game too early) get status 400 and one
  line, and change nothing: the same state, the same log.
- Bad command lines (unknown game, bad opponent spec, a port in use, an existing log) get one line and exit status 2
  and write nothing.
- In headless Chromium (:mod:`tests.cdp`), the real command serves a whole game that the test plays by clicking the
  page's buttons; the log it wrote passes ``cardgym replay --verify``.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from envs.core.cards import card_str
from envs.gamelog import read_log, verify
from envs.registry import make_game
from tests.cdp import CHROMIUM, SKIP_REASON, Chromium
from tests.input_helpers import cli_refused
from tests.table_helpers import hand_of, line_cards, named_cards
from training.browser_game import BrowserGame
from training.human_seat import make_bots, open_table, opponent_specs
from training.serve_app import PAGE, create_app

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("tripoli", 4, 1), ("triolet", 3, 2), ("flipflop", 3, 0)]


def served(game_name: str, players: int, seat: int, log: Path | None, seed: int = 11,
           opponents: tuple[str, ...] = ("heuristic",)) -> tuple[BrowserGame, object]:
    game = make_game(game_name, num_players=players)
    bots = make_bots(game, opponent_specs(game, seat, list(opponents)))
    browser_game = BrowserGame(open_table(game, bots, log), seat, bots, seed)
    browser_game.deal()
    return browser_game, create_app(browser_game).test_client()


def strings(value: object) -> list[str]:
    """Every string in a JSON value (keys too)."""
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


class Witness:
    """The cards seat ``seat`` has seen so far: every card that was in its hand, and every card a log line made
    public (the header excepted: it holds the whole deck)."""

    def __init__(self, browser_game: BrowserGame) -> None:
        self.bg = browser_game
        self.seen: set[str] = set()
        self.lines = 1

    def update(self) -> None:
        self.seen |= set(hand_of(self.bg.game, self.bg.env.state_, self.bg.seat))
        lines = self.bg.env.recorder.lines
        for line in lines[self.lines :]:
            self.seen |= line_cards(line)
        self.lines = len(lines)

    def check(self, answer: dict) -> None:
        leaked = set().union(*map(named_cards, strings(answer))) - self.seen
        assert not leaked, f"the browser was sent cards the seat has not seen: {sorted(leaked)}"


def play_through(bg: BrowserGame, client, rng: np.random.Generator, witness: Witness | None = None) -> int:
    """Play the served game to its end with random legal moves posted as the page posts them; decisions made."""
    made = 0
    while True:
        if witness is not None:
            witness.update()
        answer = client.get("/state").get_json()
        if witness is not None:
            witness.check(answer)
        if answer["over"]:
            return made
        assert answer["legal"], "the page waits on nobody"
        action = int(rng.choice([a["action"] for a in answer["legal"]]))
        reply = client.post("/act", json={"action": action, "decision": answer["decision"]})
        assert reply.status_code == 200, reply.get_json()
        if witness is not None:
            witness.update()
            witness.check(reply.get_json())
        made += 1


@pytest.mark.parametrize(("game_name", "players", "seat"), GAMES)
def test_the_browser_gets_no_card_the_seat_has_not_seen(game_name: str, players: int, seat: int, tmp_path) -> None:
    bg, client = served(game_name, players, seat, tmp_path / "game.jsonl")
    witness = Witness(bg)
    assert not named_cards(client.get("/").get_data(as_text=True))  # the page itself holds no card
    assert play_through(bg, client, np.random.default_rng(0), witness) > 0
    answer = client.get("/state").get_json()
    assert answer["over"] and "Game over" in answer["moves"][-1]
    verify(read_log(tmp_path / "game.jsonl")[0])  # the log is complete and true
    unseen = sorted({card_str(c, True) for c in range(52)} - witness.seen)
    assert unseen  # a card the seat never saw (in another hand, the stock, the spare hand)
    for leak in ({"table": f'<span class="pc red" data-card="{unseen[0]}"></span>'},
                 {"moves": [f"player_1: play {unseen[0]}"]}):
        with pytest.raises(AssertionError, match="not seen"):  # the check can fail
            witness.check(leak)


def test_the_page_shows_the_seats_hand_and_the_buttons_are_the_legal_actions(tmp_path) -> None:
    bg, client = served("tripoli", 4, 0, None)
    answer = client.get("/state").get_json()
    hand_row = re.search(r'data-field="hand"><span class="label">your hand.*?</span></span>', answer["table"])[0]
    drawn_hand = re.findall(r'data-card="([^"]+)"', hand_row)
    assert sorted(drawn_hand) == hand_of(bg.game, bg.env.state_, 0)
    if not answer["over"]:
        assert [a["action"] for a in answer["legal"]] == bg.env.legal_actions()
    assert "#keys" not in PAGE and "http" not in PAGE  # nothing fetched from anywhere


def test_bad_moves_are_refused_in_one_line_and_change_nothing(tmp_path) -> None:
    log = tmp_path / "game.jsonl"
    bg, client = served("triolet", 3, 0, log)
    before, logged = client.get("/state").get_json(), log.read_text(encoding="utf-8")
    legal = {a["action"] for a in before["legal"]}
    illegal = next(a for a in range(bg.game.num_actions) if a not in legal)
    bad = [
        ("/act", {"action": illegal, "decision": before["decision"]}, "not one of your legal actions"),
        ("/act", {"action": "12", "decision": before["decision"]}, "an action is an integer"),
        ("/act", {"action": True, "decision": before["decision"]}, "an action is an integer"),
        ("/act", {"action": min(legal), "decision": before["decision"] - 1}, "out of date"),
        ("/act", {"action": min(legal)}, "must be a JSON object"),
        ("/act", "not json", "must be a JSON object"),
        ("/new", {"decision": before["decision"]}, "not over yet"),
    ]
    for url, body, message in bad:
        reply = client.post(url, data=body) if isinstance(body, str) else client.post(url, json=body)
        error = reply.get_json()["error"]
        assert reply.status_code == 400 and message in error and "\n" not in error, (url, body, error)
        assert client.get("/state").get_json() == before
        assert log.read_text(encoding="utf-8") == logged
    play_through(bg, client, np.random.default_rng(1))
    over = client.get("/state").get_json()
    reply = client.post("/act", json={"action": min(legal), "decision": over["decision"]})
    assert reply.status_code == 400 and "game is over" in reply.get_json()["error"]
    reply = client.post("/new", json={"decision": over["decision"]})  # the next game, appended to the log
    assert reply.status_code == 200 and not reply.get_json()["over"]
    assert [g.header["seed"] for g in read_log(log)] == [11, 12]


# ----- the command line -----------------------------------------------------------------------------------------
def busy_port() -> socket.socket:
    """A socket listening on a free port of 127.0.0.1 (the port is then in use)."""
    return socket.create_server(("127.0.0.1", 0))


@pytest.mark.parametrize(("argv", "message"), [
    (["serve", "--game", "poker"], "argument --game: invalid choice: 'poker'"),
    (["serve", "--game", "tripoli", "--opponents", "nobody"], "unknown agent 'nobody'"),
    (["serve", "--game", "tripoli", "--opponents", "random", "random"], "one opponent for all bots or one per bot"),
    (["serve", "--game", "tripoli", "--seat", "4"], "--seat must be a seat 0..3"),
    (["serve", "--game", "tripoli", "--port", "70000"], "argument --port: must be an integer from 0 to 65,535"),
    (["serve", "--game", "tripoli", "--port", "{busy}", "--log", "{tmp}/game.jsonl"], "port is in use"),
    (["serve", "--game", "tripoli", "--host", "no.such.host.invalid", "--port", "0", "--log", "{tmp}/new/game.jsonl"],
     "cannot listen on no.such.host.invalid:0"),
    (["serve", "--game", "tripoli", "--log", "{tmp}/kept.jsonl"], "already exists"),
])
def test_bad_command_lines_are_one_line_and_write_nothing(argv: list[str], message: str, tmp_path, capsys,
                                                          monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.jsonl").write_text("an earlier game\n")
    before = sorted(tmp_path.rglob("*"))
    with busy_port() as sock:
        argv = [a.format(busy=sock.getsockname()[1], tmp=tmp_path) for a in argv]
        line = cli_refused(argv, capsys)
    assert line.startswith("cardgym serve: error: ") and message in line, line
    assert sorted(tmp_path.rglob("*")) == before and (tmp_path / "kept.jsonl").read_text() == "an earlier game\n"


# ----- a whole game in Chromium ------------------------------------------------------------------------------------
@pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)
def test_a_whole_game_played_in_chromium_writes_a_log_that_verifies(tmp_path) -> None:
    log = tmp_path / "game.jsonl"
    # started as a shell starts a background job, with SIGINT ignored: Ctrl-C must still stop it
    server = subprocess.Popen([sys.executable, "-m", "training.cli", "serve", "--game", "tripoli", "--players", "4",
                               "--opponents", "heuristic", "random", "tight", "--seed", "5", "--port", "0",
                               "--log", str(log)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        first = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", first)
        assert url, first + server.stderr.read() if server.poll() is not None else first
        with Chromium(tmp_path / "profile", 1400, 900) as browser:
            browser.open(url[0])
            clicks = 0
            while browser.wait_for("['your-turn', 'over'].includes(document.body.dataset.state) && "
                                   "document.body.dataset.state") == "your-turn":
                decision = browser.evaluate("current.decision")
                hand = browser.evaluate("[...document.querySelectorAll('.dock [data-field=hand] .pc')]"
                                        ".map((c) => c.dataset.card)")
                assert hand and all(hand)  # the seat's own hand, face up
                count = browser.evaluate("document.querySelectorAll('#actions button.act').length")
                browser.evaluate(f"document.querySelectorAll('#actions button.act')[{clicks * 7 % count}].click()")
                browser.wait_for(f"current.decision > {decision} || document.getElementById('error').textContent")
                assert browser.evaluate("document.getElementById('error').textContent") == ""
                clicks += 1
            moves = browser.evaluate("document.getElementById('moves').textContent")
            assert clicks > 5 and "Game over" in moves and "select (hidden)" in moves
            assert browser.evaluate("document.querySelector('#actions #new') !== null")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            out, err = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            out, err = server.communicate()
            pytest.fail(f"cardgym serve did not stop within 30 s of Ctrl-C; it printed: {out!r} {err!r}")
    assert server.returncode == 0 and "stopped" in out and "Traceback" not in err, err
    verify(read_log(log)[0])  # cardgym replay --verify accepts the log
    assert len(read_log(log)[0].steps) > clicks
