"""Flip Flop's anchor bot ``reader`` (agents/flipflop_reader.py): the heuristic with a drop that reads the table.
Positions computed by hand; everywhere but the drop it plays as the heuristic; built by name for Flip Flop only."""

from __future__ import annotations

import numpy as np
import pytest
from test_zoo import cards, decisions, flipflop_obs, parse_card

from agents.flipflop_heuristic import discards_so_far
from agents.registry import AgentSpecError, make_agent
from envs.flipflop import actions as FT
from envs.flipflop import observation as FV
from envs.registry import make_game

DRAW_OR_DROP = [FT.DROP, FT.DRAW_STOCK]


def choice(name: str, obs: np.ndarray) -> int:
    game = make_game("flipflop", num_players=3)
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, DRAW_OR_DROP] = True
    return int(make_agent(name, game).act(obs, mask, np.random.default_rng(0))[0])


def with_pile(obs: np.ndarray, pile: str) -> np.ndarray:
    """``obs`` with the cards ``pile`` in the discard pile (the last on top)."""
    obs = obs.copy()
    for card in cards(pile):
        obs[0, FV.PILE * 52 + card] = 1.0
    obs[0, FV.PILE_TOP * 52 + parse_card(pile.split()[-1])] = 1.0
    return obs


def test_it_drops_earlier_where_the_discards_are_high_cards() -> None:
    """A♣ 2♦ 4♥ (7 points) against two opponents of two unseen cards each. With K♠ discarded the viewer has not
    seen 48 cards worth 340 − 7 − 10 = 323 points, 6.729 each, so each opponent is estimated at 13.458; the discards
    average 10 points (a careful table): margin 3.0 × 1.2 (two opponents) × √2 = 5.091, it drops below 8.367 — it
    drops. With 3♠ discarded instead: 330 / 48 = 6.875 a card, estimates 13.75; the discards average 3 (a careless
    table): margin 4.0 × 1.2 × √2 = 6.788, it drops below 6.962 — 7 is not, it draws. With nothing discarded yet:
    333 / 49 = 6.796 a card, estimates 13.592, the careless margin, below 6.804 — it draws. The heuristic (margin
    3.5: 5.940) drops at all three (below 7.519, 7.810 and 7.652)."""
    obs = flipflop_obs("Ac 2d 4h", opponent_cards=2)
    careful, careless = with_pile(obs, "Ks"), with_pile(obs, "3s")
    assert choice("reader", careful) == FT.DROP
    assert choice("reader", careless) == choice("reader", obs) == FT.DRAW_STOCK
    assert choice("heuristic", careful) == choice("heuristic", careless) == choice("heuristic", obs) == FT.DROP


def test_three_points_are_no_sure_drop() -> None:
    """A♣ 2♦ (3 points), two opponents of one unseen card, nothing discarded yet: the unseen cards average
    (340 − 3) / 50 = 6.74, margin 4.0 × 1.2 = 4.8, so it would drop below 1.94 — it draws; the heuristic always
    drops with 3 points or less. With A♣ A♦ (2 points) both drop."""
    assert choice("reader", flipflop_obs("Ac 2d", opponent_cards=1)) == FT.DRAW_STOCK
    assert choice("heuristic", flipflop_obs("Ac 2d", opponent_cards=1)) == FT.DROP
    assert choice("reader", flipflop_obs("Ac Ad", opponent_cards=1)) == FT.DROP


def test_it_plays_as_the_heuristic_except_whether_to_drop() -> None:
    """On the zoo's fixed decisions the two differ only where one of them drops, and there at least once."""
    obs, mask = decisions("flipflop")
    game = make_game("flipflop", num_players=4)
    reader = make_agent("reader", game).act(obs, mask, np.random.default_rng(0))
    heuristic = make_agent("heuristic", game).act(obs, mask, np.random.default_rng(0))
    differ = reader != heuristic
    assert differ.any()
    assert ((reader[differ] == FT.DROP) | (heuristic[differ] == FT.DROP)).all()


def test_discards_so_far_counts_the_pile_and_the_taken_cards() -> None:
    """K♠ and 3♠ in the pile, the 8♦ taken from it by the next seat: three cards of (10 + 3 + 8) / 3 = 7 points."""
    obs = with_pile(flipflop_obs("Ac"), "Ks 3s")
    obs[0, (FV.TAKEN_BY + 1) * 52 + parse_card("8d")] = 1.0
    count, mean = discards_so_far(obs)
    assert count.tolist() == [3] and mean.tolist() == pytest.approx([7.0])
    count, mean = discards_so_far(flipflop_obs("Ac"))
    assert count.tolist() == [0] and mean.tolist() == [0.0]


def test_it_is_built_by_name_for_flipflop_only() -> None:
    assert make_agent("reader", make_game("flipflop", num_players=4)).name == "reader"
    with pytest.raises(AgentSpecError, match="unknown agent 'reader'"):
        make_agent("reader", make_game("tripoli", num_players=4))
