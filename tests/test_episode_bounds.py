"""C13: every episode of every game ends, terminated or truncated, within ``game.max_episode_decisions`` decisions,
whatever the players do. Adversarial policies (players who keep exchanging the top discard, who always drop, who
raise and bid as long as allowed, who play their lowest card) and random ones, several table sizes and session
settings, bankroll sessions with huge bankrolls included. Then Flip Flop's F28 cut worked out by hand: what the
money and the pots are after a deal or a session is cut off."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from envs import flipflop_v1
from envs.core.cards import parse_card
from envs.core.config import ConfigError
from envs.core.game import BatchedGame, sample_legal
from envs.flipflop import FlipFlopGame
from envs.flipflop import actions as FT
from envs.flipflop import observation as FV
from envs.flipflop.state import CUT_OFF, DROP_WON, INSTANT
from envs.triolet import actions as LR
from envs.triolet.core import TrioletGame
from envs.tripoli import actions as TA
from envs.tripoli.core import TripoliGame
from envs.tripoli.state import P_BET
from tests.reference.flipflop_ref import stack_deck

Policy = Callable[[BatchedGame, object, np.random.Generator], np.ndarray]


def run(game: BatchedGame, seeds: np.ndarray, policy: Policy, at_most: int | None = None):
    """Play every table to its end with ``policy``; assert at every step that no table has taken more decisions than
    ``game.max_episode_decisions`` (or ``at_most``, when a test knows a smaller bound). Returns (decisions per table,
    final state, summed rewards per table and seat)."""
    bound = game.max_episode_decisions if at_most is None else min(at_most, game.max_episode_decisions)
    s = game.init(seeds)
    rng = np.random.default_rng(0)
    decisions = np.zeros(len(seeds), dtype=np.int64)
    returns = s.rewards.copy()
    while not s.done.all():
        live = ~s.done
        game.step(s, policy(game, s, rng))
        decisions += live
        returns += s.rewards
        assert decisions.max() <= bound, (game.name, game.config, decisions.max(), bound)
    assert not (s.terminated & s.truncated).any()
    return decisions, s, returns


def random_policy(game, s, rng) -> np.ndarray:
    return sample_legal(s.legal_action_mask, rng)


def preferring(scores: np.ndarray, name: str) -> Policy:
    """The policy ``name`` that plays the legal action with the lowest score (ties: the lowest id)."""

    def policy(game, s, rng) -> np.ndarray:
        return np.where(s.legal_action_mask, scores, np.inf).argmin(axis=1)

    policy.__name__ = name
    return policy


# ----- Flip Flop ------------------------------------------------------------------------------------------------------
def flipflop_scores(first: str) -> np.ndarray:
    """``exchange``: take the top discard whenever possible, else draw from the stock, then discard at once (never
    lay, never drop): nothing in the rules ends such a deal. ``drop``: drop at every turn."""
    scores = np.full(FT.NUM_ACTIONS, 1000.0)  # lays and lay-offs last
    scores[FT.DISCARD : FT.LAY_RUN] = 10 + np.arange(52)
    scores[FT.DRAW_STOCK] = 2
    scores[FT.DRAW_DISCARD : FT.DISCARD] = 1
    scores[FT.DROP] = 0 if first == "drop" else 2000
    return scores


EXCHANGE = preferring(flipflop_scores("exchange"), "exchange")
DROPPER = preferring(flipflop_scores("drop"), "dropper")


def random_no_drop(game, s, rng) -> np.ndarray:
    """Random legal actions, but never a drop: deals end by going out, a tunk or the stock (random players who may
    drop end nearly every deal at once)."""
    mask = s.legal_action_mask.copy()
    mask[:, FT.DROP] = False
    return sample_legal(mask, rng)

FLIPFLOP_CASES = [
    (2, {}, EXCHANGE),
    (4, {}, EXCHANGE),
    (7, {"max_turns": 30}, EXCHANGE),
    (3, {"auto_forced": False, "max_turns": 25}, EXCHANGE),
    (2, {}, random_policy),
    (5, {}, random_policy),
    (2, {}, random_no_drop),
    (5, {"max_turns": 12}, random_no_drop),
    (7, {"auto_forced": False}, random_no_drop),
    (3, {"num_deals": 40, "bankroll": 1_000_000, "max_deals": 6}, random_no_drop),
    (4, {"until_one_left": True, "bankroll": 1_000_000, "max_deals": 4}, random_no_drop),
    (4, {"until_one_left": True, "bankroll": 1_000_000, "max_deals": 50}, random_policy),
    (6, {"until_one_left": True, "bankroll": 1_000_000, "max_deals": 3, "max_turns": 20}, EXCHANGE),
    (3, {"until_one_left": True, "bankroll": 6}, random_policy),
    (2, {"num_deals": 5, "bankroll": 1_000_000}, DROPPER),
]


@pytest.mark.parametrize(("n", "options", "policy"), FLIPFLOP_CASES,
                         ids=[f"{n}p-{o}-{p.__name__}" for n, o, p in FLIPFLOP_CASES])
def test_c13_f28_flipflop_every_episode_ends_within_the_bound(n, options, policy):
    game = FlipFlopGame(n, **options)
    decisions, s, returns = run(game, np.arange(12, dtype=np.uint64) + 100 * n, policy)
    cfg = game.config
    cut_deal = s.end_reason == CUT_OFF
    assert (s.truncated[cut_deal]).all() and (s.turn_no[cut_deal] == cfg.max_turns).all()
    cut_session = s.truncated & ~cut_deal
    assert (s.deal_no[cut_session] == cfg.max_deals).all()
    assert (s.deal_no <= cfg.max_deals).all()
    # C10 and F28: money is only moved, never lost or created, cut or not.
    start = cfg.bankroll * n if cfg.session else 0
    assert np.allclose(s.bank.sum(axis=1) + s.pots.sum(axis=1), start)
    assert np.allclose(returns, s.bank - (cfg.bankroll if cfg.session else 0))
    if policy is EXCHANGE and not cfg.session:
        # Nothing but the cut ends these deals, except a 49/50 on the deal (F7): its claim is the one decision.
        instant = s.end_reason == INSTANT
        assert (decisions[instant] == 1).all()
        assert (s.terminated == instant).all() and cut_deal[~instant].all()
        per_turn = 2  # a draw and a discard
        assert (decisions[~instant] == per_turn * cfg.max_turns).all()


def test_c13_f28_two_players_exchanging_the_discard_are_cut_after_max_turns():
    """The endless deal of issue 11: after the first draw from the stock, two players keep taking each other's
    discard. The deal is cut after 200 turns (400 decisions) with 41 cards still in the stock; the game pot stays."""
    game = FlipFlopGame(2)
    decisions, s, returns = run(game, np.array([5], dtype=np.uint64), EXCHANGE)
    assert s.truncated[0] and not s.terminated[0] and s.end_reason[0] == CUT_OFF
    assert decisions[0] == 400 and s.turn_no[0] == 200
    assert 52 - s.stock_pos[0] == 41
    assert s.pots[0, 0] == 2  # F28: the game pot is not paid
    assert s.current_player[0] == -1 and not s.legal_action_mask[0].any()


def test_c13_f28_a_huge_bankroll_session_is_cut_after_max_deals():
    """Players who always drop with 1,000,000 stakes each: ``until_one_left`` would last for ages; the session is
    truncated after exactly the default 1000 deals, each deal one decision at most (a 49/50 deal asks for none)."""
    game = FlipFlopGame(3, until_one_left=True, bankroll=1_000_000)
    assert game.config.max_deals == 1000
    decisions, s, _ = run(game, np.arange(2, dtype=np.uint64), DROPPER, at_most=1000)
    assert s.truncated.all() and not s.terminated.any()
    assert (s.deal_no == 1000).all()
    assert (decisions <= 1000).all() and (decisions >= 950).all()


def test_c13_f28_flipflop_bound_is_computed_from_the_config():
    """Seven decisions a turn at most (a draw, then at most six cards leave a hand of six: lays, lay-offs, the
    discard), ``max_turns`` turns a deal and a 49/50 claim (F7), ``min(num_deals, max_deals)`` deals (``max_deals``
    until one is left)."""
    assert FlipFlopGame(4).max_episode_decisions == 7 * 200 + 1
    assert FlipFlopGame(4, num_deals=30, max_turns=50).max_episode_decisions == 30 * (7 * 50 + 1)
    assert FlipFlopGame(4, num_deals=3000).max_episode_decisions == 1000 * (7 * 200 + 1)
    assert FlipFlopGame(2, until_one_left=True, max_deals=12).max_episode_decisions == 12 * (7 * 200 + 1)


@pytest.mark.parametrize("option", ["max_turns", "max_deals"])
@pytest.mark.parametrize("value", [0, -5, 2.5, True, "10"])
def test_f28_limits_refuse_bad_values(option, value):
    with pytest.raises(ConfigError, match=f"option {option}=.* is not allowed; allowed: an integer from 1 to"):
        FlipFlopGame(3, **{option: value})


# ----- F28 by hand ----------------------------------------------------------------------------------------------------
def ids(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


# Three players, dealer player_2: P0 plays first, then P1, then the dealer. Flip card 8♠ (the dealer's fifth card):
# spades
# are the flip suit, clubs the flop suit. Totals: P0 24, P1 38, P2 40.
BASIC = {0: "Ah 2h 3h 9c 9d", 1: "5s 6s 7s Kd Qd", 2: "Jc Jd Tc 2d 8s"}


def stacked(hands: dict[int, str], stock: str = "", seed: int = 0, **options):
    game = FlipFlopGame(3, **options)
    deck = stack_deck(3, 2, {s: ids(h) for s, h in hands.items()}, ids(stock))
    return game, game.init(seed, decks=np.array([deck]), dealers=np.array([2]))


def act(game: FlipFlopGame, s, name: str) -> list[float]:
    game.step(s, game.action_id(name))
    return s.rewards[0].tolist()


def turn_seen(game: FlipFlopGame, s, seat: int) -> float:
    return float(game.observe(s, seat)[0, FV.TABLE_OFFSET + FV.TABLE_FIELDS.index("turn_no")])


def test_f28_cut_before_the_showing_is_complete_pays_no_pot():
    """``max_turns=2``: P0 and P1 play a turn each and the deal is cut before the dealer's first turn, so the flip and
    flop pots are not paid (F12 is not complete) and nobody else shows: each player is down the three antes and the
    pots hold 3, 3, 3. The cut step's rewards are 0 (C13)."""
    game, s = stacked(BASIC, stock="4c 5c", max_turns=2)
    assert [turn_seen(game, s, p) for p in range(3)] == [1, 1, 1]  # public: every seat sees the turn number
    assert act(game, s, "draw stock") == [0, 0, 0]
    assert act(game, s, "discard 9♦") == [0, 0, 0]
    assert s.turn_no[0] == 2 and turn_seen(game, s, 0) == 2
    assert act(game, s, "draw stock") == [0, 0, 0]
    assert act(game, s, "discard K♦") == [0, 0, 0]
    assert s.truncated[0] and not s.terminated[0] and s.end_reason[0] == CUT_OFF
    assert s.bank[0].tolist() == [-3, -3, -3]
    assert s.pots[0].tolist() == [3, 3, 3]
    shown = {FT.PUB_OF[b] for b in range(52) if int(s.shown[0]) >> b & 1}
    assert shown == set(ids("8s 9c 5s"))  # the flip card, P0's 9♣ and P1's 5♠ (F12); the dealer never showed
    assert s.current_player[0] == -1 and not s.legal_action_mask[0].any()
    picture = game.render_table(s, 0, None)
    assert "cut off (F28)" in picture and "cut off after max_turns turns (F28)" in picture
    game.step(s, 0)  # a finished table ignores further steps
    assert s.rewards[0].tolist() == [0, 0, 0] and s.bank[0].tolist() == [-3, -3, -3]


def test_f28_cut_after_the_showing_keeps_the_side_pots_paid():
    """``max_turns=3``: the dealer's first turn completes the showing (F12), so the flip pot went to P1 (5♠, the
    lowest spade dealt) and the flop pot to P0 (9♣, the lowest club) when P1's turn ended; then the dealer's turn is
    cut off. Money: P0 -3+3 = 0, P1 0, P2 -3; the game pot keeps its 3."""
    game, s = stacked(BASIC, stock="4c 5c 6c", max_turns=3)
    act(game, s, "draw stock")
    act(game, s, "discard 9♦")
    act(game, s, "draw stock")
    assert act(game, s, "discard K♦") == [3, 3, 0]
    act(game, s, "draw stock")
    assert act(game, s, "discard J♦") == [0, 0, 0]
    assert s.truncated[0] and s.end_reason[0] == CUT_OFF
    assert s.bank[0].tolist() == [0, 0, -3]
    assert s.pots[0].tolist() == [3, 0, 0]


def test_f28_a_deal_cut_in_a_session_truncates_the_session():
    """Three deals of bankroll 10, ``max_turns=2``. Deal 1: P0 drops with 24 against 38 and 40 and takes the game
    pot (3); P1 takes the flip pot (5♠), P0 the flop pot (9♣): 13, 10, 7. Deal 2 (dealer player_0) begins in the same
    step
    with the antes, 3 each: 10, 7, 4, rewards +3, 0, -3. Its first two turns are cut before the dealer's first turn:
    the episode is truncated with the money at 10, 7, 4 and deal 2's antes left in the pots (3, 3, 3)."""
    game, s = stacked(BASIC, num_deals=3, bankroll=10, max_turns=2)
    assert act(game, s, "drop") == [3, 0, -3]
    assert s.deal_no[0] == 1 and s.end_reason[0] == DROP_WON and not s.done[0]
    assert s.current_player[0] == 1 and s.turn_no[0] == 1
    for _ in range(2):
        act(game, s, "draw stock")
        mask = s.legal_action_mask[0]
        game.step(s, FT.DISCARD + int(np.flatnonzero(mask[FT.DISCARD : FT.LAY_RUN])[0]))
        assert s.rewards[0].tolist() == [0, 0, 0]
    assert s.truncated[0] and not s.terminated[0] and s.end_reason[0] == CUT_OFF
    assert s.bank[0].tolist() == [10, 7, 4]
    assert s.pots[0].tolist() == [3, 3, 3]
    assert s.deal_no[0] == 1  # the cut deal did not finish
    assert game.render_table(s, 0, None).startswith("Flip Flop, deal 2, dealer player_0 — cut off")


def test_f28_a_session_cut_after_max_deals_leaves_an_unwon_pot():
    """``until_one_left`` with ``max_deals=1``: no club is dealt, so the flop pot (3) is not won (F10) and would
    carry; P0 drops with 24 and takes the game pot, P1 the flip pot (5♠). The session would go on: it is truncated
    with the money at 10, 10, 7 and the flop pot's 3 still on the table. The drop step's rewards are 3, 3, 0."""
    hands = {0: "Ah 2h 3h 9d 9h", 1: "5s 6s 7s Kd Qd", 2: "Jh Jd Th 2d 8s"}
    game, s = stacked(hands, until_one_left=True, bankroll=10, max_deals=1)
    assert act(game, s, "drop") == [3, 3, 0]
    assert s.truncated[0] and not s.terminated[0] and s.end_reason[0] == DROP_WON
    assert s.deal_no[0] == 1
    assert game.render_table(s, 0, None).startswith("Flip Flop, deal 1, dealer player_2 — cut off")
    assert s.bank[0].tolist() == [10, 10, 7]
    assert s.pots[0].tolist() == [0, 0, 3]


@pytest.mark.parametrize(("num_deals", "max_deals", "terminated"), [(2, 2, True), (3, 2, False), (2, 5, True)])
def test_f28_max_deals_truncates_only_a_session_the_rules_do_not_end(num_deals, max_deals, terminated):
    """``num_deals`` reached at the same deal as ``max_deals``: the rules end the session (termination); with more
    deals to play the session is truncated after ``max_deals`` deals, with the money the rules-ended session has."""
    game = FlipFlopGame(3, num_deals=num_deals, bankroll=50, max_deals=max_deals)
    _, s, _ = run(game, np.arange(6, dtype=np.uint64), DROPPER)
    assert (s.terminated == terminated).all() and (s.truncated == (not terminated)).all()
    assert (s.deal_no == min(num_deals, max_deals)).all()
    same = FlipFlopGame(3, num_deals=min(num_deals, max_deals), bankroll=50)
    _, ended, _ = run(same, np.arange(6, dtype=np.uint64), DROPPER)
    assert np.allclose(s.bank, ended.bank) and np.allclose(s.pots, ended.pots)


def test_c13_f28_pettingzoo_face_reports_the_cut_as_truncation():
    """The AEC face: after the cut every agent is truncated, none terminated, and the returns are the money moved
    before the cut (each player's three antes, the side pots paid at the dealer's first turn)."""
    env = flipflop_v1.env(2, max_turns=6)
    env.reset(seed=3)
    scores = flipflop_scores("exchange")
    returns = dict.fromkeys(env.agents, 0.0)
    ends = {}
    steps = 0
    for agent in env.agent_iter(max_iter=100):  # the cut comes after 12 steps; without it the loop stops here
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            ends[agent] = (term, trunc)
            env.step(None)
            continue
        env.step(int(np.where(obs["action_mask"] == 1, scores, np.inf).argmin()))
        steps += 1
    state = env.unwrapped.state_
    assert steps == 12  # a draw and a discard in each of the 6 turns
    assert ends == {"player_0": (False, True), "player_1": (False, True)}
    assert np.allclose([returns["player_0"], returns["player_1"]], state.bank[0])
    assert np.isclose(sum(returns.values()), -state.pots[0].sum())


# ----- Tripoli --------------------------------------------------------------------------------------------------------
def tripoli_scores(game: TripoliGame, style: str) -> np.ndarray:
    """``low``: the dealer auctions and swaps whenever allowed, every bid is the smallest legal one (the longest
    auctions), every bet and raise is 1 and raises are made whenever allowed (``max_raises`` of them every round).
    ``high``: bids and raises as far as allowed. Never fold or pass while something else is legal."""
    A = game.actions
    cfg = game.config
    scores = np.full(game.num_actions, 500.0)
    scores[[TA.AUCTION, TA.SWAP, TA.KEEP]] = [0, 1, 2]
    k = np.arange(1, cfg.max_bid + 1)
    scores[A.bid : A.bid + cfg.max_bid] = 10 + (k if style == "low" else -k + cfg.max_bid)
    k = np.arange(1, cfg.bet_limit + 1)
    step = k if style == "low" else cfg.bet_limit - k
    scores[A.raise_ : A.raise_ + cfg.bet_limit] = 200 + step
    scores[A.bet : A.bet + cfg.bet_limit] = 320 + step
    scores[[A.call, A.check]] = [440, 450]
    scores[[TA.PASS, A.fold]] = 900
    return scores


TRIPOLI_CASES = [
    (2, {}),
    (5, {}),
    (9, {}),
    (4, {"num_deals": 3}),
    (3, {"pay_suit": "auction", "max_bid": 100, "max_raises": 20, "bet_limit": 100, "auto_forced": False}),
    (6, {"spare_hand": "swap_only", "num_deals": 2, "final_round": False, "poker_select": "best"}),
    (9, {"num_deals": 2, "max_raises": 20, "paycards": "play", "auto_forced": False}),
    (5, {"num_deals": 2, "final_round": "pots", "final_pots": 9, "max_raises": 20}),
    (4, {"cosmo": True, "num_deals": 3, "auto_forced": False}),
]


@pytest.mark.parametrize("style", ["low", "high", "random"])
@pytest.mark.parametrize(("n", "options"), TRIPOLI_CASES, ids=[f"{n}p-{o}" for n, o in TRIPOLI_CASES])
def test_c13_t28_tripoli_every_episode_ends_within_the_bound(n, options, style):
    """T7, T14 and T22 keep every stage finite; the episode is ``num_deals`` deals (and a final round)."""
    game = TripoliGame(n, **options)
    policy = random_policy if style == "random" else preferring(tripoli_scores(game, style), style)
    decisions, s, _ = run(game, np.arange(8, dtype=np.uint64) + 7 * n, policy)
    assert s.terminated.all() and not s.truncated.any()
    assert (decisions > 0).all()


def test_c13_t28_tripoli_bound_is_computed_from_the_config():
    """4 players, defaults: spare hand 2 + 20 + 3, selection 20, betting 4·5 - 1 = 19, Michigan 52 - 10 = 42: 106
    a deal. Three deals and the final betting round: 3·106 + 19."""
    assert TripoliGame(4).max_episode_decisions == 106
    assert TripoliGame(4, num_deals=3).max_episode_decisions == 3 * 106 + 19
    assert TripoliGame(4, num_deals=3, final_round=False).max_episode_decisions == 3 * 106
    # T26 adds an auction of every player (20 + 4) and the naming of the suit; `best` selection asks nothing.
    assert TripoliGame(4, pay_suit="auction", poker_select="best").max_episode_decisions == 106 + 25 - 20
    assert TripoliGame(2, spare_hand="none", max_raises=0).max_episode_decisions == 10 + 3 + 52 - 17
    # T28 pots: one final betting round per pot; share and none: none. T30 Cosmo: the Michigan stage alone.
    assert TripoliGame(4, num_deals=3, final_round="pots", final_pots=3).max_episode_decisions == 3 * 106 + 3 * 19
    assert TripoliGame(4, num_deals=3, final_round="share").max_episode_decisions == 3 * 106
    assert TripoliGame(4, num_deals=2, cosmo=True).max_episode_decisions == 2 * 42 + 19


def test_c13_t14_tripoli_raising_players_use_every_raise():
    """Four players who bet and raise by one whenever allowed, ``poker_select='best'``, no spare hand: the round is
    the opening bet, ``max_raises`` = 3 raises and 3 calls, 7 decisions (the bound allows 4·5 - 1 = 19)."""
    game = TripoliGame(4, spare_hand="none", poker_select="best")
    s = game.init(np.arange(4, dtype=np.uint64))
    policy = preferring(tripoli_scores(game, "low"), "low")
    assert (s.phase == P_BET).all()
    betting = 0
    while (s.phase == P_BET).any():
        game.step(s, policy(game, s, None))
        betting += 1
    assert betting == 7
    assert (s.raises == 3).all()


# ----- Le triolet -----------------------------------------------------------------------------------------------------
def triolet_scores() -> np.ndarray:
    """Swap three times, pick up whenever allowed, else play the single weakest card (7s and 10s, which clear the way,
    last), from the hand, the face-up cards, then the face-down ones: the slowest way through the deck."""
    scores = np.full(LR.NUM_ACTIONS, 10_000.0)
    strength = np.where(LR.STRENGTH >= 0, LR.STRENGTH, 20 + np.arange(13))  # 7 and 10 after every other rank
    rank = np.arange(13)
    scores[LR.PLAY_HAND + LR.MAX_COPIES * rank] = 100 + strength  # one card of a rank
    for k in range(2, LR.MAX_COPIES + 1):
        scores[LR.PLAY_HAND + LR.MAX_COPIES * rank + k - 1] = 1000 + 100 * k + strength
    scores[LR.PLAY_FACEUP : LR.PLAY_FACEUP_SET] = 300 + strength[np.arange(52) % 13]
    scores[LR.PLAY_FACEDOWN : LR.PICK_UP] = 500
    scores[LR.PICK_UP] = 0
    scores[LR.SWAP :] = 1
    scores[LR.READY] = 2
    return scores


TRIOLET_CASES = [(3, {}), (5, {}), (8, {}), (4, {"max_turns": 40}), (6, {"faceup_sets": True, "auto_forced": False}),
                 (3, {"auto_forced": False, "max_turns": 120})]


@pytest.mark.parametrize("style", ["lowest", "random"])
@pytest.mark.parametrize(("n", "options"), TRIOLET_CASES, ids=[f"{n}p-{o}" for n, o in TRIOLET_CASES])
def test_c13_l16_triolet_every_episode_ends_within_the_bound(n, options, style):
    """L4 caps the swaps, L16 cuts the play after ``max_turns`` turns; a cut gives 0 to everybody."""
    game = TrioletGame(n, **options)
    policy = random_policy if style == "random" else preferring(triolet_scores(), "lowest")
    decisions, s, returns = run(game, np.arange(8, dtype=np.uint64) + 11 * n, policy)
    assert (s.turns <= game.config.max_turns).all()
    assert (s.turns[s.truncated] == game.config.max_turns).all()
    assert not returns[s.truncated].any()
    assert np.allclose(returns[s.terminated].sum(axis=1), 0)


def test_c13_l16_triolet_bound_is_computed_from_the_config():
    """Four decisions a player in the swap phase (three exchanges and ``ready``), then one a turn."""
    assert TrioletGame(3).max_episode_decisions == 12 + 1000
    assert TrioletGame(8, max_turns=50).max_episode_decisions == 32 + 50


def test_c13_l4_triolet_swappers_use_every_swap_decision():
    """Players who swap as long as allowed make 3 exchanges and say ready: 4 decisions each, 4·n before play."""
    game = TrioletGame(5, auto_forced=False)
    s = game.init(np.arange(3, dtype=np.uint64))
    policy = preferring(triolet_scores(), "lowest")
    steps = 0
    while (s.phase == 0).any():
        game.step(s, policy(game, s, None))
        steps += 1
    assert steps == 4 * 5 and (s.phase == 1).all()
