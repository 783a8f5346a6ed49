"""Flip Flop rules F1–F27 (docs/flipflop.md), one or more scripted deals per rule with stacked decks and
results computed by hand from the rules. Seats play clockwise from the dealer's left (C4, F5)."""

from __future__ import annotations

import numpy as np
import pytest

from envs import flipflop_v1
from envs.core.cards import card_str, parse_card
from envs.core.config import ConfigError
from envs.flipflop import FlipFlopGame
from envs.flipflop import actions as T
from envs.flipflop import observation as V
from envs.flipflop.state import CAUGHT, DROP_WON, FLOP_POT, GAME_POT, INSTANT, STOCK_OUT, TUNKED, WENT_OUT
from tests.reference.flipflop_ref import stack_deck


def ids(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def deal(n: int, dealer: int, hands: dict[int, str], stock: str = "", seed: int = 0, **options):
    """A core at batch size 1 with a stacked first deal."""
    g = FlipFlopGame(n, **options)
    deck = stack_deck(n, dealer, {s: ids(h) for s, h in hands.items()}, ids(stock))
    s = g.init(seed, decks=np.array([deck]), dealers=np.array([dealer]))
    return g, s


def act(g: FlipFlopGame, s, name: str) -> list[float]:
    """Play the action named ``name``; the step's rewards."""
    g.step(s, g.action_id(name))
    return s.rewards[0].tolist()


def claim(g: FlipFlopGame, s, seat: int) -> list[float]:
    """F7: a dealt 49 or 50 waits on its claim, the claimant's one legal action; the rewards of the deal so far (the
    antes of init) plus those of the claim."""
    assert not s.done[0] and s.current_player[0] == seat and legal(g, s) == {"claim 49/50"}
    dealt = s.rewards[0].copy()
    return (dealt + np.array(act(g, s, "claim 49/50"))).tolist()


def legal(g: FlipFlopGame, s) -> set[str]:
    return {g.action_name(a) for a in np.flatnonzero(s.legal_action_mask[0])}


def cards_in(mask) -> set[str]:
    """Public names (C1, ascii) of the cards of an ace-low mask."""
    return {card_str(int(T.PUB_OF[b])) for b in range(52) if int(mask) >> b & 1}


def plane(obs: np.ndarray, index: int) -> set[str]:
    """Cards set in a 52-value card plane of an observation."""
    block = obs[index * 52 : (index + 1) * 52]
    return {card_str(c) for c in np.flatnonzero(block)}


# Three players, dealer P2: P0 plays first, then P1, then P2. Flip card 8♠ (P2's fifth card): spades flip, clubs flop.
BASIC = {0: "Ah 2h 3h 9c 9d", 1: "5s 6s 7s Kd Qd", 2: "Jc Jd Tc 2d 8s"}


# ----- F1–F6: players, values, money, pots, deal ----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_f1_two_to_seven_players(n):
    g = FlipFlopGame(n)
    s = g.init(1, batch_size=4)
    assert s.hands.shape == (4, n) and (np.bitwise_count(s.hands) == 5).all()


@pytest.mark.parametrize("n", [1, 8])
def test_f1_other_table_sizes_refused(n):
    with pytest.raises(ConfigError, match="2 to 7"):
        FlipFlopGame(n)


def test_f1_one_deck_of_52_cards():
    with pytest.raises(ValueError, match="52"):
        FlipFlopGame(3).init(0, decks=np.arange(104)[None])


@pytest.mark.parametrize(
    "hands",
    [
        # Aces count 1: P0 16 against 24 (with aces 11 or 14, P0 would be caught).
        {0: "Ac Ad 9c 2c 3c", 1: "Kh 4h 2d 3h 5s", 2: "Qs Js Ts 7d 8h"},
        # Kings count 10: P0 24 against 27 (with a king worth 13, P0 would tie and be caught).
        {0: "Kc 2c 3c 4c 5c", 1: "9h 8h 7h 2d Ad", 2: "Qs Js Ts 7d 8s"},
    ],
)
def test_f2_card_values_in_a_showdown(hands):
    g, s = deal(3, 2, hands)
    act(g, s, "drop")
    assert s.end_reason[0] == DROP_WON


def test_f2_runs_are_aces_low_only():
    """After drawing Q♥: A-2-3, 2-3-4 and A-2-3-4 are runs, Q-K-A is not."""
    g, s = deal(3, 2, {0: "Ah 2h 3h 4h Kh", 1: "2c 3c 4c 5c 6c", 2: "2s 3s 4s 5s 7d"}, stock="Qh")
    act(g, s, "draw stock")
    runs = {a for a in legal(g, s) if a.startswith("lay run")}
    assert runs == {"lay run A♥2♥3♥", "lay run 2♥3♥4♥", "lay run A♥2♥3♥4♥"}


def test_f3_amounts_are_real_numbers_split_exactly():
    """Game pot 3 shared by the three players tied at the stock's end would be 1 each; here a game pot of 5 is split
    between two 49s (see F8) and a pot of 7 between two players (F21): fractions, conserved to 1e-9."""
    g, s = deal(5, 4, {0: "Kc Qc Jc Tc 9c", 1: "Ks Qs Js Ts 9s", 2: "2c 3c 4c 5c 6c", 3: "7c 8c 2s 3s 4s",
                       4: "5s 6s 7s Ad Ah"})
    nets = claim(g, s, 0)
    assert s.terminated[0]
    assert nets[0] == pytest.approx(-3 + 2.5) and nets[1] == pytest.approx(-3 + 2.5)
    assert abs(sum(nets) + s.pots[0].sum()) < 1e-9


def test_f4_every_player_antes_each_pot():
    g = FlipFlopGame(4)
    s = g.init(5, batch_size=8)
    live = ~s.terminated
    assert (s.rewards[live] == -3).all()
    assert (s.pots[live] == 4).all()


def test_f5_dealing_order_and_flip_card():
    """Deck 0, 1, 2, … with dealer P2 of three: P0 gets cards 0, 3, 6, 9, 12; the dealer's fifth card 14 (3♦) is the
    flip card, face up, in the dealer's hand."""
    g = FlipFlopGame(3)
    s = g.init(0, decks=np.arange(52)[None], dealers=np.array([2]))
    assert cards_in(s.hands[0, 0]) == {card_str(c) for c in (0, 3, 6, 9, 12)}
    assert cards_in(s.hands[0, 1]) == {card_str(c) for c in (1, 4, 7, 10, 13)}
    assert cards_in(s.hands[0, 2]) == {card_str(c) for c in (2, 5, 8, 11, 14)}
    for seat in range(3):
        assert plane(g.observe(s, seat)[0], V.FLIP_CARD) == {"3d"}
    assert s.current_player[0] == 0


def test_f6_stock_and_empty_discard_pile():
    g = FlipFlopGame(3)
    s = g.init(0, decks=np.arange(52)[None], dealers=np.array([2]))
    obs = g.observe(s, 0)[0]
    assert obs[V.TABLE_OFFSET + V.TABLE_FIELDS.index("stock_size")] == 37
    assert not plane(obs, V.PILE)
    assert legal(g, s) == {"drop", "draw stock"}
    act(g, s, "draw stock")
    assert card_str(15) in cards_in(s.hands[0, 0])


# ----- F7–F8: 49 and 50 -------------------------------------------------------------------------------------------
def test_f7_single_49_takes_the_game_pot():
    """P1 holds 49. Flip card 5♥: P0's 2♥ wins the flip pot, P0's 2♦ the flop pot. Nets: P0 -3+6, P1 -3+3, P2 -3."""
    g, s = deal(3, 2, {0: "2h 2d 6s 8s 9d", 1: "Kc Qc Jc Tc 9c", 2: "3d 7s 2s 3s 5h"})
    assert s.rewards[0].tolist() == [-3.0, -3.0, -3.0]  # the antes; the claim is asked (no episode over at reset)
    assert claim(g, s, 1) == [3.0, 0.0, -3.0]
    assert s.terminated[0] and s.end_reason[0] == INSTANT
    assert cards_in(s.shown[0]) >= {"Kc", "Qc", "Jc", "Tc", "9c"}  # the claimant showed the hand


def test_f7_single_50_also_collects_an_extra_stake_from_everyone():
    g, s = deal(3, 2, {0: "2h 2d 6s 8s 9d", 1: "Kc Qc Jc Tc Kd", 2: "3d 7s 2s 3s 5h"})
    assert claim(g, s, 1) == [3.0 - 1, 0.0 + 2, -3.0 - 1]
    assert s.terminated[0]


def test_f7_instant_deal_does_not_end_a_session():
    g, s = deal(3, 2, {0: "2h 2d 6s 8s 9d", 1: "Kc Qc Jc Tc 9c", 2: "3d 7s 2s 3s 5h"}, num_deals=2)
    claim(g, s, 1)
    assert not s.terminated[0] and s.deal_no[0] == 1 and s.dealer[0] == 0


def test_f7_claim_is_asked_even_with_forced_moves_resolved_and_without():
    for auto in (True, False):
        g, s = deal(3, 2, {0: "2h 2d 6s 8s 9d", 1: "Kc Qc Jc Tc 9c", 2: "3d 7s 2s 3s 5h"}, auto_forced=auto)
        assert legal(g, s) == {"claim 49/50"} and s.current_player[0] == 1 and s.forced_count[0] == 0


def test_f7_declare_first_turn_claim_at_the_claimants_own_first_turn():
    """``first_turn``: P0 (first to play) draws and discards; P1 holds 50: at the start of P1's first turn, after
    showing, the claim is P1's one action; P1 alone takes the game pot (3) and one stake from P0 and P2. P2 (the
    dealer, 49) never had a turn: no pooling, and P2 pays like everybody else."""
    g, s = deal(3, 2, {0: "2h 3d 6s 8s 4d", 1: "Kc Qc Jc Tc Kd", 2: "Ks Qs Js Ts 9s"}, stock="5c",
                declare_49_50="first_turn")
    assert legal(g, s) == {"drop", "draw stock"} and s.current_player[0] == 0
    act(g, s, "draw stock")
    act(g, s, "discard 5♣")
    assert s.current_player[0] == 1 and legal(g, s) == {"claim 49/50"}
    rewards = act(g, s, "claim 49/50")
    assert s.terminated[0] and s.end_reason[0] == INSTANT
    # The flip card 9♠: spades flip, clubs flop. P1: game pot 3 + 1 stake from each of P0 and P2, and the flop pot (3,
    # its T♣ is the lowest club dealt; P0's 5♣ was drawn, F11). P0 pays 1 and takes the flip pot (3, its 6♠ beats
    # the 9♠). P2 pays 1.
    assert rewards == [-1.0 + 3, 3.0 + 2 + 3, -1.0]


def test_f26_stake_scales_every_reward():
    hands = {0: "2h 2d 6s 8s 9d", 1: "Kc Qc Jc Tc Kd", 2: "3d 7s 2s 3s 5h"}
    g, s = deal(3, 2, hands, stake=2.5)
    assert claim(g, s, 1) == [2.5 * (3.0 - 1), 2.5 * (0.0 + 2), 2.5 * (-3.0 - 1)]
    with pytest.raises(ConfigError, match="stake"):
        FlipFlopGame(3, stake=0)


def test_f8_several_49s_share_without_extra():
    """P0 and P1 hold 49: 1.5 each; P2 wins the flip (6♦) and flop (2♥) pots."""
    g, s = deal(3, 2, {0: "Kc Qc Jc Tc 9c", 1: "Ks Qs Js Ts 9s", 2: "2h 3h 4h 5h 6d"})
    assert claim(g, s, 0) == [-1.5, -1.5, 3.0]  # P0, the first claimant from the dealer's left, is asked


def test_f8_worked_example_through_the_public_api():
    """Rules example: five players; A (P0) has 49, B (P1) has 50. Game-pot nets: A +0.5, B +5.5, C, D, E -2.
    The flip card A♥ and the A♦ are E's: E wins the flip and flop pots (5 each); everyone anted them (-2)."""
    deck = stack_deck(5, 4, {0: ids("Kc Qc Jc Tc 9c"), 1: ids("Ks Qs Js Ts Kh"), 2: ids("2c 3c 4c 5c 6c"),
                              3: ids("7c 8c 2s 3s 4s"), 4: ids("5s 6s 7s Ad Ah")})
    env = flipflop_v1.env(num_players=5)
    env.reset(seed=3, options={"deck": deck, "dealer": 4})
    assert not any(env.terminations.values()) and env.agent_selection == "player_0"  # the first claimant is asked
    env.step(env.unwrapped.game.action_id("claim 49/50"))
    game_pot_net = {"player_0": 0.5, "player_1": 5.5, "player_2": -2.0, "player_3": -2.0, "player_4": -2.0}
    side_net = {"player_0": -2.0, "player_1": -2.0, "player_2": -2.0, "player_3": -2.0, "player_4": 8.0}
    assert all(env.terminations.values())
    for agent, reward in env.rewards.items():
        assert reward == pytest.approx(game_pot_net[agent] + side_net[agent], abs=1e-9)


# ----- F9–F12: flip and flop ------------------------------------------------------------------------------------------
def test_f9_flip_pot_to_lowest_flip_suit_card_aces_low():
    """Flip card A♠ (the dealer's): lower than P0's 2♠, so the dealer wins the flip pot. P0 drops and is caught by P2
    (20 against 19): P0 pays one more, P2 takes 4; P0 wins the flop pot (3♣)."""
    g, s = deal(3, 2, {0: "2s 3c 4c 5c 6c", 1: "7c 8c 9c Tc 2h", 2: "3d 4d 5d 6d As"})
    start = s.rewards[0].tolist()
    end = act(g, s, "drop")
    assert s.end_reason[0] == CAUGHT
    assert [a + b for a, b in zip(start, end, strict=True)] == [-3 - 1 + 3, -3, -3 + 4 + 3]


def test_f10_flop_pot_stays_when_its_suit_was_not_dealt():
    """Flip 9♥, no diamond dealt. P0 drops tied with P1 (20): caught, P1 takes 4; the flop pot (3) stays."""
    hands = {0: "2c 3c 4c 5c 6c", 1: "2s 3s 4s 5s 6s", 2: "7c 8c 7s 8s 9h"}
    g, s = deal(3, 2, hands)
    end = act(g, s, "drop")
    assert end == [-1.0, 4.0, 3.0]
    assert s.pots[0].tolist() == [0.0, 0.0, 3.0]


def test_f10_f4_unwon_flop_pot_carries_to_the_next_deal():
    hands = {0: "2c 3c 4c 5c 6c", 1: "2s 3s 4s 5s 6s", 2: "7c 8c 7s 8s 9h"}
    g, s = deal(3, 2, hands, num_deals=2)
    act(g, s, "drop")
    assert s.deal_no[0] == 1 and not s.terminated[0]  # the second deal (from the seed) is under way
    assert s.pots[0].tolist() == [3.0, 3.0, 3.0 + 3.0]


# The showing deal: flip 9♥ (hearts flip, diamonds flop). Stock: A♥ then 2♣ 3♣ …
SHOWING = {0: "5h 8d Kc Qc 2s", 1: "7h 4d Ks Qs 3s", 2: "2h 3d 5c 6c 9h"}


def test_f12_showing_order_and_side_pots_paid_when_complete():
    g, s = deal(3, 2, SHOWING, stock="Ah")
    # P0 shows 5♥ (lower than the flip card) and 8♦ (first diamond) just before the first turn.
    assert cards_in(s.shown[0]) == {"9h", "5h", "8d"}
    act(g, s, "draw stock")
    assert act(g, s, "discard K♣") == [0.0, 0.0, 0.0]
    # P1: 7♥ is not lower than 5♥ (not shown), 4♦ is lower than 8♦ (shown).
    assert cards_in(s.shown[0]) == {"9h", "5h", "8d", "4d"}
    act(g, s, "draw stock")
    rewards = act(g, s, "discard 2♣")
    # The dealer shows 2♥ and the flop-suit 3♦ only now; the showing is complete and both pots are paid.
    assert cards_in(s.shown[0]) == {"9h", "5h", "8d", "4d", "2h", "3d"}
    assert rewards == [0.0, 0.0, 6.0]


def test_f11_a_drawn_card_cannot_win_the_flip_pot():
    """P0 draws A♥ (lower than every dealt heart) and keeps it; the flip pot still goes to P2's dealt 2♥."""
    g, s = deal(3, 2, SHOWING, stock="Ah")
    act(g, s, "draw stock")
    act(g, s, "discard K♣")
    assert "Ah" in cards_in(s.hands[0, 0])
    act(g, s, "draw stock")
    assert act(g, s, "discard 2♣")[2] == 6.0


def test_f12_showing_completed_at_once_when_the_deal_ends_early():
    """P0 drops at the first turn (35 against 34 and 25: caught, P2 takes 4); P2's 2♥ and 3♦ still win both pots."""
    g, s = deal(3, 2, SHOWING)
    assert act(g, s, "drop") == [-1.0, 0.0, 4.0 + 6.0]


def test_f12_players_without_a_turn_show_at_once_in_order():
    """P0 tunks on the first turn (3♠4♠5♠ and 8♣8♦8♠); P1 then shows 7♥ and 4♦, and P2 2♥ and 3♦ (each lower than
    what was shown before), at once. P2 wins both side pots; P1 and P2 pay P0 one stake each (F20)."""
    g, s = deal(3, 2, {0: "3s 4s 5s 8c 8d", 1: "7h 4d Kc Qc 3c", 2: "2h 3d 5c 6c 9h"}, stock="8s")
    assert cards_in(s.shown[0]) == {"9h", "8d"}
    act(g, s, "draw stock")
    act(g, s, "lay run 3♠4♠5♠")
    assert act(g, s, "lay set 8♣8♦8♠") == [5.0, -1.0, -1.0 + 6.0]
    assert cards_in(s.shown[0]) == {"9h", "8d", "7h", "4d", "2h", "3d"}


# ----- F13–F17: turns ----------------------------------------------------------------------------------------------
def test_f13_draw_then_discard_first_player_draws_from_stock():
    g, s = deal(3, 2, SHOWING, stock="Ah")
    assert legal(g, s) == {"drop", "draw stock"}  # the discard pile is empty
    act(g, s, "draw stock")
    assert {a for a in legal(g, s) if a.startswith("discard")} == {f"discard {c}" for c in "5♥ 8♦ K♣ Q♣ 2♠ A♥".split()}
    assert not legal(g, s) & {"drop", "draw stock"}
    act(g, s, "discard K♣")
    assert legal(g, s) == {"drop", "draw stock", "draw discard K♣"}


def test_f13_card_taken_from_the_discard_pile_may_not_be_discarded():
    g, s = deal(3, 2, SHOWING, stock="Ah")
    act(g, s, "draw stock")
    act(g, s, "discard K♣")
    act(g, s, "draw discard K♣")
    discards = {a for a in legal(g, s) if a.startswith("discard")}
    assert discards == {f"discard {c}" for c in "7♥ 4♦ K♠ Q♠ 3♠".split()}
    assert s.pile_len[0] == 0 and "Kc" in cards_in(s.taken_by[0, 1])


def test_f13_taken_card_may_be_laid_but_not_left_alone():
    """P1 holds Q♠ K♠ 3♠ … and takes Q♣; it may be laid in a set, never kept as the last card that cannot go."""
    g, s = deal(3, 2, {0: "2c 3c 4c 5c Qd", 1: "Qh Qs 7h 8h 9h", 2: "2s 3s 4s 5s 9d"}, stock="Kc")
    act(g, s, "draw stock")
    act(g, s, "discard Q♦")
    act(g, s, "draw discard Q♦")
    assert "lay set Q♦Q♥Q♠" in legal(g, s)
    assert "discard Q♦" not in legal(g, s)
    act(g, s, "lay set Q♦Q♥Q♠")
    act(g, s, "lay run 7♥8♥9♥")
    assert s.terminated[0] and s.end_reason[0] == TUNKED


def test_f13_taken_card_cannot_be_left_as_the_only_card():
    """P0 lays 3♣4♣5♣ and discards Q♦; P1 takes Q♦ and lays 7♥-10♥, holding 2♣ and Q♦. Laying 2♣ off on P0's run
    would leave only Q♦, which can neither be discarded nor laid: that lay-off is refused (decision)."""
    hands = {0: "3c 4c 5c Qd Kd", 1: "7h 8h 9h Th 2c", 2: "2s 3s 4s 5s 9d"}
    g, s = deal(3, 2, hands, stock="Ks", auto_forced=False)
    for name in ["draw stock", "lay run 3♣4♣5♣", "discard Q♦", "draw discard Q♦", "lay run 7♥8♥9♥10♥"]:
        act(g, s, name)
    assert legal(g, s) == {"discard 2♣"}  # "lay off 2♣ on the run starting 3♣" is refused
    # C8: with forced moves resolved (the default), that discard is played by the engine.
    g, s = deal(3, 2, hands, stock="Ks")
    for name in ["draw stock", "lay run 3♣4♣5♣", "discard Q♦", "draw discard Q♦", "lay run 7♥8♥9♥10♥"]:
        act(g, s, name)
    assert s.last_action[0, 1] == g.action_id("discard 2♣") and s.current_player[0] == 2


def test_f14_sets_of_three_and_four():
    g, s = deal(3, 2, {0: "2c 3c 4c 5c 6d", 1: "7c 7d 7h 7s 2s", 2: "9s Ts Js 3h 4h"}, stock="Kd Qd")
    act(g, s, "draw stock")
    act(g, s, "discard K♦")
    act(g, s, "draw stock")
    sets = {a for a in legal(g, s) if a.startswith("lay set")}
    assert sets == {"lay set 7♣7♦7♥", "lay set 7♣7♦7♠", "lay set 7♣7♥7♠", "lay set 7♦7♥7♠", "lay set 7♣7♦7♥7♠"}


def test_f14_laid_spreads_no_longer_count_f19_strictly_lowest_dropper_wins():
    """P0 lays A♥-4♥ and keeps 5♣ (5); P1 lays four 7s and keeps K♠ (10); P2 keeps 46. P0 drops and wins the game pot.
    Flip 8♥: P0's A♥ wins the flip pot; P1's 7♦ the flop pot."""
    g, s = deal(3, 2, {0: "Ah 2h 3h 4h 5c", 1: "7c 7d 7h 7s Ks", 2: "9d 9s Td Jd 8h"}, stock="Kc Qs 2c")
    rewards = np.array(s.rewards[0])
    for name in ["draw stock", "lay run A♥2♥3♥4♥", "discard K♣", "draw stock", "lay set 7♣7♦7♥7♠", "discard Q♠",
                 "draw stock", "discard 2♣", "drop"]:
        rewards += act(g, s, name)
    assert s.end_reason[0] == DROP_WON
    assert rewards.tolist() == [-3 + 3 + 3, -3 + 3, -3]


def test_f15_lay_off_on_either_end_of_another_players_run_f20_tunk_over_two_turns():
    """P0 lays 3♥4♥5♥; P1 lays off 2♥ below it, P2 6♥ above it, neither having laid a spread. P0 then lays
    9♣9♦9♠ and goes out: two spreads of three that P0 laid (others' lay-offs do not spoil it) — a tunk."""
    g, s = deal(3, 2, {0: "3h 4h 5h 9c 9d", 1: "2h 9h Qs Js 7c", 2: "6h 7d 8d Tc 4s"}, stock="Kc Ks Kd 9s")
    act(g, s, "draw stock")
    act(g, s, "lay run 3♥4♥5♥")
    act(g, s, "discard K♣")
    act(g, s, "draw stock")
    assert "lay off 2♥ on the run starting 3♥" in legal(g, s)
    act(g, s, "lay off 2♥ on the run starting 3♥")
    act(g, s, "discard K♠")
    act(g, s, "draw stock")
    assert {a for a in legal(g, s) if a.startswith("lay off")} == {"lay off 6♥ on the run ending 5♥"}
    act(g, s, "lay off 6♥ on the run ending 5♥")
    act(g, s, "discard K♦")
    assert cards_in(s.spreads[0, 0]) == {"2h", "3h", "4h", "5h", "6h"}
    act(g, s, "draw stock")
    rewards = act(g, s, "lay set 9♣9♦9♠")
    assert s.end_reason[0] == TUNKED
    assert rewards == [3.0 + 2.0, -1.0, -1.0]


def test_f15_fourth_card_on_a_set_of_three():
    g, s = deal(3, 2, {0: "9c 9d 9s 2c 3c", 1: "9h Qs Js 7c 8c", 2: "6h 7d 8d Tc 4s"}, stock="Kc Kd")
    act(g, s, "draw stock")
    act(g, s, "lay set 9♣9♦9♠")
    act(g, s, "discard K♣")
    act(g, s, "draw stock")
    assert "lay off 9♥ on the set of 9s" in legal(g, s)
    act(g, s, "lay off 9♥ on the set of 9s")
    assert cards_in(s.spreads[0, 0]) == {"9c", "9d", "9h", "9s"} and cards_in(s.sets[0]) == cards_in(s.spreads[0, 0])


# A deal where P0 can lay out at once; the flip card 7♦ and P2 win the flip pot, P0's A♥ the flop pot.
OUT_HANDS = {1: "2c 3c 4c 5c 6c", 2: "Kc Qc Jc 2s 7d"}


def test_f16_f20_no_discard_when_the_hand_is_empty_long_run_is_no_tunk():
    """P0 lays A♥ to 6♥ and has no card left: the deal ends without a discard; one run of six is not a tunk, so
    nobody pays an extra stake. P0 takes the game pot (3) and the flop pot; P2 the flip pot."""
    g, s = deal(3, 2, {0: "Ah 2h 3h 4h 5h", **OUT_HANDS}, stock="6h")
    act(g, s, "draw stock")
    rewards = act(g, s, "lay run A♥2♥3♥4♥5♥6♥")
    assert s.terminated[0] and s.end_reason[0] == WENT_OUT and s.pile_len[0] == 0
    assert rewards == [6.0, 0.0, 3.0]


def test_f17_drop_only_instead_of_drawing():
    g, s = deal(3, 2, BASIC)
    assert "drop" in legal(g, s)
    act(g, s, "draw stock")
    assert "drop" not in legal(g, s)


def test_f18_going_out_with_a_discard_c8_forced_discard():
    """P0 lays A♥-5♥; the only card left (K♠) must be discarded (a forced move, C8) and P0 is out."""
    g, s = deal(3, 2, {0: "Ah 2h 3h 4h 5h", **OUT_HANDS}, stock="Ks")
    act(g, s, "draw stock")
    rewards = act(g, s, "lay run A♥2♥3♥4♥5♥")
    assert s.terminated[0] and s.end_reason[0] == WENT_OUT
    assert s.last_action[0, 0] == g.action_id("discard K♠")
    assert rewards == [6.0, 0.0, 3.0]


def test_f19_worked_example_through_the_public_api():
    """Rules example: five players, A (P0) drops and ties for lowest (20) with C and D: A pays one more (pot 6), C and
    D take 3 each. Game-pot nets: A -2, C +2, D +2, B -1, E -1. Side pots: E's 7♠ (flip) wins 5, A's 2♣ (flop) 5."""
    hands = {0: "2c 3c 4c 5c 6c", 1: "7c 8c 9c 7d 8d", 2: "2d 3d 4d 5d 6d", 3: "2h 3h 4h 5h 6h", 4: "9d 7h 8h 9h 7s"}
    env = flipflop_v1.env(num_players=5)
    env.reset(seed=11, options={"deck": stack_deck(5, 4, {s: ids(h) for s, h in hands.items()}), "dealer": 4})
    total = dict(env.rewards)
    assert env.agent_selection == "player_0"
    env.step(env.unwrapped.game.action_id("drop"))
    assert all(env.terminations.values())
    game_pot_net = [-2.0, -1.0, 2.0, 2.0, -1.0]
    side_net = [-2.0 + 5.0, -2.0, -2.0, -2.0, -2.0 + 5.0]
    for s, agent in enumerate(env.possible_agents):
        assert total[agent] + env.rewards[agent] == pytest.approx(game_pot_net[s] + side_net[s], abs=1e-9)


def test_f20_tunk_in_one_turn_others_pay_one_stake():
    """P0 draws 9♠, lays A♥2♥3♥ and 9♣9♦9♠: a tunk. P1 and P2 pay one stake each into the game pot (3 + 2 = 5)
    and P0 takes it; the side pots are paid at the deal's end (P0 flop 3, P2 flip 3)."""
    g, s = deal(3, 2, {0: "Ah 2h 3h 9c 9d", **OUT_HANDS}, stock="9s")
    act(g, s, "draw stock")
    act(g, s, "lay run A♥2♥3♥")
    rewards = act(g, s, "lay set 9♣9♦9♠")
    assert s.end_reason[0] == TUNKED
    assert rewards == [5.0 + 3.0, -1.0, -1.0 + 3.0]


def test_f21_stock_exhausted_lowest_totals_share():
    """Seven players, 17 cards of stock; everyone draws and discards the drawn card. The 17th draw (P2) ends the deal
    after P2's discard; P3 and P5 tie for lowest (11) and share the game pot of 7; P5's A♦ and A♥ win both side pots."""
    hands = {0: "Tc Jc Qc 9d 8d", 1: "Td Jd Qd 7d 6d", 2: "Th Jh Qh 9h 8h", 3: "Ac 2c 3c 2d 3d",
             4: "Ts Js Qs 9s 8s", 5: "Ad 2h 3h Ah 4c", 6: "5c 6c 7c 4d 5d"}
    g, s = deal(7, 6, hands)
    total = s.rewards[0].copy()
    for turn in range(17):
        assert not s.terminated[0]
        seat = int(s.current_player[0])
        before = int(s.hands[0, seat])
        act(g, s, "draw stock")
        drawn = cards_in(int(s.hands[0, seat]) & ~before).pop()
        total += act(g, s, f"discard {card_str(parse_card(drawn), unicode=True)}")
        assert seat == turn % 7
    assert s.terminated[0] and s.end_reason[0] == STOCK_OUT and s.stock_pos[0] == 52
    assert total.tolist() == pytest.approx([-3, -3, -3, -3 + 3.5, -3, -3 + 3.5 + 14, -3], abs=1e-9)


def test_f22_exactly_one_ending_per_deal():
    """In random play every finished deal has exactly one ending and the game pot is empty after it."""
    g = FlipFlopGame(4, num_deals=3)
    s = g.init(7, batch_size=256)
    rng = np.random.default_rng(0)
    deals = s.deal_no.copy()
    while not s.done.all():
        g.step(s, random_actions(s, rng))
        ended = s.deal_no > deals
        assert (s.end_reason[ended] > 0).all()
        # The game pot was won exactly once: what is in it now are the new deal's antes, or nothing at the end.
        going = ended & ~s.terminated
        assert (s.pots[going, GAME_POT] == s.in_deal[going].sum(axis=1)).all()
        assert (s.pots[s.terminated, GAME_POT] == 0).all()
        deals = s.deal_no.copy()
    assert (s.deal_no == 3).all()


def random_actions(s, rng):
    """Random legal actions, dropping rarely so that deals last."""
    mask = s.legal_action_mask.copy()
    mask[:, T.DROP] &= rng.random(len(mask)) < 0.1
    mask[~mask.any(axis=1)] = s.legal_action_mask[~mask.any(axis=1)]
    scores = rng.random(mask.shape)
    scores[~mask] = -1
    return scores.argmax(axis=1)


# ----- F23–F26: sessions -------------------------------------------------------------------------------------------
def test_f23_session_of_num_deals_dealer_moves_left():
    g = FlipFlopGame(3, num_deals=4, bankroll=100)
    s = g.init(3, batch_size=64, dealers=np.zeros(64, dtype=int))
    rng = np.random.default_rng(1)
    while not s.done.all():
        before_deal, before_dealer = s.deal_no.copy(), s.dealer.copy()
        g.step(s, random_actions(s, rng))
        moved = (s.deal_no > before_deal) & ~s.terminated
        assert (s.dealer[moved] == (before_dealer[moved] + s.deal_no[moved] - before_deal[moved]) % 3).all()
    assert (s.deal_no == 4).all()


def test_f23_until_one_left():
    g = FlipFlopGame(4, until_one_left=True, bankroll=4)
    s = g.init(9, batch_size=64)
    rng = np.random.default_rng(2)
    while not s.done.all():
        g.step(s, random_actions(s, rng))
    assert ((~s.out).sum(axis=1) == 1).all()


def test_f23_single_deal_has_no_bankroll_limit():
    g = FlipFlopGame(3)
    s = g.init(0, batch_size=32)
    assert (s.anted | s.terminated[:, None, None]).all()
    assert (s.bank[~s.terminated] == -3).all()


def test_f24_short_player_antes_game_and_flip_only_f25_out_when_game_pot_unaffordable():
    """Four players with 5 stakes. Deal 1: P1 holds 50, P2 49: game pot 4 shared (2 each), P0, P2, P3 pay P1 one
    stake; P3's 2♦ (the flip card) wins the flip pot (4); no heart is dealt, so the flop pot (4) stays.
    Banks: P0 1, P1 7, P2 3, P3 5. Deal 2: P0 cannot ante the game pot and keep a stake in reserve: out (F25); P2
    antes the game and flip pots only (F24); the dealer moves left past P0 to P1."""
    hands = {0: "6c 7c 8c 9c 3s", 1: "Kc Qc Jc Tc Kd", 2: "Ks Qs Js Ts 9s", 3: "2c 3c 4c 5c 2d"}
    g, s = deal(4, 3, hands, num_deals=2, bankroll=5)
    claim(g, s, 1)
    assert s.deal_no[0] == 1 and not s.terminated[0]
    assert s.out[0].tolist() == [True, False, False, False]
    assert s.anted[0].tolist() == [[False] * 3, [True] * 3, [True, True, False], [True] * 3]
    assert s.bank[0].tolist() == [1.0, 4.0, 1.0, 2.0]
    assert s.pots[0].tolist() == [3.0, 3.0, 4.0 + 2.0]
    assert s.dealer[0] == 1 and s.current_player[0] == 2


def test_f24_pot_not_anted_goes_to_the_best_player_who_anted():
    """Continuing the previous session: P2 (first to play) drops. The flop pot goes to the lowest flop-suit card
    dealt among P1 and P3 (who anted it), whatever P2 holds; it stays if neither holds one."""
    hands = {0: "6c 7c 8c 9c 3s", 1: "Kc Qc Jc Tc Kd", 2: "Ks Qs Js Ts 9s", 3: "2c 3c 4c 5c 2d"}
    p2_had_the_lowest = 0
    for seed in range(6):
        g, s = deal(4, 3, hands, seed=seed, num_deals=2, bankroll=5)
        claim(g, s, 1)
        flop_suit = 3 - int(s.flip_card[0]) // 13
        dealt = {p: [b for b in range(52) if int(s.hands[0, p]) >> b & 1 and b // 13 == flop_suit] for p in (1, 2, 3)}
        holders = {p: min(c) for p, c in dealt.items() if c and p != 2}
        p2_had_the_lowest += bool(dealt[2]) and all(min(dealt[2]) < low for low in holders.values())
        flop_pot = float(s.pots[0, FLOP_POT])
        bank = s.bank[0].copy()
        act(g, s, "drop")
        gains = s.bank[0] - bank
        if holders:
            winner = min(holders, key=holders.get)
            assert gains[winner] >= flop_pot - 1e-9
        else:
            assert s.pots[0, FLOP_POT] == flop_pot
        assert s.side_winner[0, 1] == (min(holders, key=holders.get) if holders else -1)
    assert p2_had_the_lowest >= 2  # the seeds include deals where P2 held the lowest flop-suit card


def test_f25_all_in_player_is_out_unless_they_win_the_game_pot():
    """Three players with 5 stakes, dealer P1. Deal 1: P1 50 (flip card K♦, the only diamond, wins the flip pot),
    P2 49, no heart dealt. Banks: P0 1 (out), P1 8.5, P2 2.5 — P2 antes only the game pot and is all in.
    Deal 2 (dealer P2): P1 drops; P2 is out exactly when P1 takes the game pot, which ends the session."""
    hands = {0: "2c 3c 4c 5c 6c", 1: "Kc Qc Jc Tc Kd", 2: "Ks Qs Js Ts 9s"}
    outcomes = set()
    for seed in range(12):
        g, s = deal(3, 1, hands, seed=seed, num_deals=5, bankroll=5)
        claim(g, s, 2)
        assert s.out[0].tolist() == [True, False, False]
        assert s.all_in[0].tolist() == [False, False, True]
        assert s.anted[0, 2].tolist() == [True, False, False]
        assert s.bank[0].tolist() == [1.0, 8.5 - 3, 2.5 - 1]
        assert s.dealer[0] == 2 and s.current_player[0] == 1
        totals = [sum(min(b % 13 + 1, 10) for b in range(52) if int(s.hands[0, p]) >> b & 1) for p in (1, 2)]
        act(g, s, "drop")
        p1_wins = totals[0] < totals[1]
        assert bool(s.out[0, 2]) == p1_wins
        assert bool(s.terminated[0]) == p1_wins
        outcomes.add(p1_wins)
    assert outcomes == {True, False}


def test_f26_rewards_sum_to_the_change_of_money():
    g = FlipFlopGame(5, num_deals=6, bankroll=10)
    s = g.init(4, batch_size=128)
    total = s.rewards.copy()
    rng = np.random.default_rng(3)
    while not s.done.all():
        g.step(s, random_actions(s, rng))
        total += s.rewards
    np.testing.assert_allclose(total, s.bank - 10, atol=1e-9)


# ----- F27: information -------------------------------------------------------------------------------------------
def test_f27_observation_shows_public_information():
    """After P0 lays 3♥4♥5♥ and discards K♣, and P1 takes K♣ then discards Q♠: P2 sees P0's spread (P0 is P2's
    left neighbour, rel 1), the discard pile, who took what, stock size, pots and bankrolls, but not the hands."""
    g, s = deal(3, 2, {0: "3h 4h 5h 9c 9d", 1: "2h 9h Qs Js 7c", 2: "6h 7d 8d Tc 4s"}, stock="Kc Ks")
    for name in ["draw stock", "lay run 3♥4♥5♥", "discard K♣", "draw discard K♣", "discard Q♠"]:
        act(g, s, name)
    obs = g.observe(s, 2)[0]
    assert plane(obs, V.HAND) == {"6h", "7d", "8d", "Tc", "4s"}
    assert plane(obs, V.SPREAD_OF + 1) == {"3h", "4h", "5h"}  # P0 is P2's rel 1
    assert plane(obs, V.TAKEN_BY + 2) == {"Kc"}  # P1 is P2's rel 2
    assert plane(obs, V.KNOWN_IN + 2) == {"Kc", "7c"}
    assert plane(obs, V.PILE) == {"Qs"} and plane(obs, V.PILE_TOP) == {"Qs"}
    # The flip card 4♠; P0's 9♣ (first club, the flop suit), P1's lower 7♣; the dealer P2 has nothing lower.
    assert plane(obs, V.SHOWN) == {"4s", "9c", "7c"}
    t = V.TABLE_OFFSET
    assert obs[t + V.TABLE_FIELDS.index("stock_size")] == 52 - 15 - 1
    assert obs[t + 1 : t + 4].tolist() == [3.0, 0.0, 0.0]  # showing complete: P2 took the flip pot, P1 the flop
    bank = V.SEATS_OFFSET + V.SEAT_FIELDS.index("bank") * V.MAX_SEATS
    assert obs[bank : bank + 3].tolist() == [0.0, -3.0, 0.0]  # P2, P0, P1
    size = V.SEATS_OFFSET + V.SEAT_FIELDS.index("hand_size") * V.MAX_SEATS
    assert obs[size : size + 3].tolist() == [5.0, 2.0, 5.0]


def test_f27_discard_pile_order_is_public():
    g, s = deal(3, 2, BASIC, stock="Kc Ks 2c")
    for name in ["draw stock", "discard K♣", "draw stock", "discard K♠", "draw stock", "discard 2♣"]:
        act(g, s, name)
    obs = g.observe(s, 0)[0]
    order = obs[V.PILE_ORDER * 52 : (V.PILE_ORDER + 1) * 52]
    ranked = [card_str(c) for c in np.argsort(-order)[:3]][::-1]
    assert ranked == ["Kc", "Ks", "2c"]
    assert plane(obs, V.PILE_TOP) == {"2c"}


def test_f5_f27_render_shows_flip_card_and_viewer_hand_only():
    g, s = deal(3, 2, BASIC)
    text = g.render_table(s, 0, 0)
    assert "9♣ 9♦ A♥ 2♥ 3♥" in text and "8♠" in text and "+5 hidden" in text
    assert "K♦" not in text
    assert "player_0 to draw" in text
