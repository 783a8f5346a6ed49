"""The drawn table (envs/scene.py, envs/drawing.py) without a browser: every frame of the golden games shows exactly
the cards the replay's table showed before it was drawn (:func:`envs.html.table_html`, nothing more, nothing less),
for every seat and the public; the seats' chips, card counts and hands, Tripoli's board and Le triolet's face-down
cards agree with the game's state read directly; the last move and forced moves are marked."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from envs.core.cards import card_str
from envs.drawing import draw
from envs.gamelog import public_view, read_log, replayed
from envs.html import table_html
from envs.narration import highlight
from envs.scene import scene
from tests.table_helpers import CARD, drawn_cards, hand_of, in_hand_counts

GOLDEN = Path(__file__).parent / "golden"
LEGAL_ROW = re.compile(r"<tr><th>legal</th>.*?</tr>", re.S)
OLD_CARD = re.compile(r'<span class="card" style="color:#[0-9a-f]+">([^<]+)</span>')


def old_cards(fragment: str) -> set[str]:
    """The cards the replay's table showed before it was drawn (its legal actions left out)."""
    return {c for c in OLD_CARD.findall(LEGAL_ROW.sub("", fragment)) if CARD.fullmatch(c)}


@pytest.mark.parametrize("game_name", ["tripoli", "triolet", "flipflop"])
def test_every_frame_shows_the_cards_the_replay_showed_before(game_name: str) -> None:
    for log in read_log(GOLDEN / f"{game_name}.jsonl")[:2]:
        n = log.header["num_players"]
        for viewer in [None, *range(n)]:
            for game, state, _ in replayed(log):
                drawn = draw(scene(game, state, viewer))
                assert drawn_cards(drawn) == old_cards(table_html(game, state, 0, viewer)), (viewer, game_name)


@pytest.mark.parametrize("game_name", ["tripoli", "triolet", "flipflop"])
def test_seats_agree_with_the_state(game_name: str) -> None:
    log = read_log(GOLDEN / f"{game_name}.jsonl")[0]
    n = log.header["num_players"]
    viewer = 1
    for game, state, _ in replayed(log):
        sc = scene(game, state, viewer)
        assert [s.hand_count for s in sc.seats] == in_hand_counts(game, state)
        assert sorted(card_str(c, True) for c in sc.seats[viewer].hand) == hand_of(game, state, viewer)
        assert [s.hand is not None for s in sc.seats] == [s == viewer for s in range(n)]
        assert [s.to_act for s in sc.seats] == [s == int(state.current_player[0]) and not bool(state.done[0])
                                                for s in range(n)]
        if game_name == "tripoli":
            assert [x for s in sc.seats for label, x in s.numbers if label == "chips"] == state.balance[0].tolist()
            assert [space.chips for space in sc.board] == state.layout[0].tolist()
            assert [space.label for space in sc.board][:6] == ["A♥", "K♥", "Q♥", "J♥", "10♥", "K♥Q♥"]
        if game_name == "triolet":
            down = [next(r.backs for r in s.rows if r.field == "facedown") for s in sc.seats]
            assert down == (state.facedown[0] >= 0).sum(axis=1).tolist()
            assert all(not r.cards for s in sc.seats for r in s.rows if r.field == "facedown")  # never which


def test_the_last_move_and_forced_moves_are_marked() -> None:
    log = read_log(GOLDEN / "tripoli.jsonl")[0]
    view = public_view("tripoli")
    marked = 0
    for game, state, line in replayed(log):
        if line is None or not line["forced"]:
            continue
        picture = draw(scene(game, state, 0), highlight(line, view, 0))
        assert re.search(rf'class="seat[^"]* last[^"]*" data-seat="{line["seat"]}"', picture)
        assert picture.count("(forced)") == len(line["forced"])
        new = [c for e in line["events"] for c in e.get("added", [])]
        assert picture.count(" new\"") >= len(new) > 0
        marked += 1
    assert marked > 0


def test_public_view_has_no_hand_and_no_private_row() -> None:
    log = read_log(GOLDEN / "tripoli.jsonl")[0]
    for game, state, _ in replayed(log):
        sc = scene(game, state, None)
        assert all(s.hand is None and not s.you for s in sc.seats)
        assert not any(r.label.startswith("your ") for s in sc.seats for r in s.rows)
        assert np.all([s.hand_count >= 0 for s in sc.seats])
