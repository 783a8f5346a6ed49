"""Notebook rendering (envs/html.py): envs and game logs as HTML tables of cards, suit colours, nothing hidden."""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs.aec import CardGymEnv
from envs.core.cards import card_str, cards_of
from envs.gamelog import GameRecorder
from envs.html import BLACK, RED, card_html, colour_text, table_html
from envs.registry import make_game

CARD_SPAN = re.compile(r'<span class="card" style="color:(#[0-9a-f]+)">((?:10|[2-9JQKA])[♣♦♥♠])</span>')


def shown_cards(html: str) -> set[str]:
    return {card for _, card in CARD_SPAN.findall(html)}


def test_suit_colours():
    assert f"color:{RED}" in card_html(2 * 13 + 10) and "Q♥" in card_html(2 * 13 + 10)  # Q♥ red
    assert f"color:{RED}" in card_html(1 * 13 + 8) and "10♦" in card_html(1 * 13 + 8)  # 10♦ red
    assert f"color:{BLACK}" in card_html(3 * 13 + 12) and f"color:{BLACK}" in card_html(0)  # A♠, 2♣ black
    painted = colour_text("play 10♠ then Q♥ <b>")
    assert dict((card, colour) for colour, card in CARD_SPAN.findall(painted)) == {"10♠": BLACK, "Q♥": RED}
    assert "&lt;b&gt;" in painted  # text is escaped


@pytest.mark.parametrize(("name", "n"), [("tripoli", 4), ("triolet", 3), ("flipflop", 3)])
def test_env_html_render_and_repr(name, n):
    env = CardGymEnv(make_game(name, n), render_mode="html")
    env.reset(seed=3)
    html = env.render()
    assert html == env._repr_html_()
    assert html.count('<table class="cardgym"') == 1 and "to act" in html
    seat = int(env.state_.current_player[0])
    assert f"seen by player_{seat}" in html and "legal" in html
    for a in np.flatnonzero(env.state_.legal_action_mask[0]):
        assert colour_text(env.action_name(int(a))) in html


def test_tripoli_html_shows_only_the_viewers_cards():
    """At the start of a Tripoli deal no card is public: the picture holds exactly the viewer's hand, and the
    public picture (no viewer) holds no card at all."""
    game = make_game("tripoli", 4)
    for seed in range(5):
        state = game.init(seed, 1)
        for viewer in range(4):
            hand = {card_str(c, True) for c in cards_of(state.hands[0, viewer])}
            assert shown_cards(table_html(game, state, 0, viewer)) == hand
        assert shown_cards(table_html(game, state, 0, None)) == set()


def test_log_html_has_a_row_per_step_in_colour():
    env = CardGymEnv(make_game("tripoli", 3))
    env.recorder = GameRecorder(None)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    while not bool(env.state_.done[0]):
        env.step(int(rng.choice(env.legal_actions())))
    log = env.recorder.log()
    html = log._repr_html_()
    assert html.count("<tr><td>") == len(log.steps)
    assert f"color:{RED}" in html and f"color:{BLACK}" in html
    assert "result" in html and "deal 1 over" in html
