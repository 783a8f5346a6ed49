"""Tripoli: common rules C1–C13, the layout, deal and spare hand (T1–T11) and the variants and episodes (T26–T29).

Scripted deals use stacked decks (tests/tripoli_helpers.py); every expected chip count is worked out by hand from
docs/tripoli.md and the engine decisions, as explained next to it. Deck M is described in
tests/test_tripoli_rules_play.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.cards import card_str
from envs.core.config import ConfigError
from envs.core.game import IllegalActionError
from envs.core.poker import mask_rank
from envs.core.rng import STREAM_DEALER, shuffled_decks, uniform_ints
from envs.tripoli.core import TripoliGame
from envs.tripoli.observation import OFFSETS
from envs.tripoli_v1 import env as make_env
from envs.tripoli_v1 import raw_env
from tests.tripoli_helpers import (
    FAST,
    K_HANDS,
    K_SPARE,
    M_HANDS,
    M_SPARE,
    P_HANDS,
    P_SPARE,
    T10_HANDS,
    T10_SPARE,
    Table,
    cards,
)

ALL_SUITS = ("♣", "♦", "♥", "♠")


def deck_m(dealer: int = 2, **options) -> Table:
    return Table(3, M_HANDS, M_SPARE, dealer=dealer, **options)


def names(prefix: str, lo: int, hi: int) -> set[str]:
    return {f"{prefix} {k}" for k in range(lo, hi + 1)}


# ===================================================================================== common rules
def test_c1_card_ids_and_printing():
    g = TripoliGame(4)
    base = g.action_id("select 2♣")
    assert g.action_name(base + 0) == "select 2♣"
    assert g.action_name(base + 8) == "select 10♣"  # rank 8 is the ten
    assert g.action_name(base + 13 + 9) == "select J♦"
    assert g.action_name(base + 2 * 13 + 10) == "select Q♥"
    assert g.action_name(base + 3 * 13 + 12) == "select A♠"
    assert [card_str(c) for c in cards("Td Qh As 2c")] == ["Td", "Qh", "As", "2c"]
    assert cards("2c Ac 2d Qh As") == [0, 12, 13, 36, 51]


def test_c4_clockwise_auction_order_skips_dealer():
    t = Table(4, dealer=1, seed=3, paycards="play")
    assert t.player == 1 and t.legal() == {"keep", "swap", "auction"}
    t.play("auction")
    assert t.player == 2  # left of the dealer
    t.play("bid 1")
    assert t.player == 3
    t.play("pass")
    assert t.player == 0
    t.play("bid 2")
    assert t.player == 2  # the dealer (1) does not bid
    assert t.play("pass") == [-2, 2, 0, 0]  # seat 3 passed already: seat 0 wins and pays the dealer


def test_c5_dealer_drawn_from_seed_and_moves_left():
    for n, seed in [(4, 11), (5, 12), (9, 13), (3, 14)]:
        expected = int(uniform_ints(np.array([seed], dtype=np.uint64), STREAM_DEALER, 0, n)[0])
        t = Table(n, dealer=None, seed=seed)
        assert t.player == expected and t.legal() == {"keep", "swap", "auction"}
        assert int(t.state.dealer[0]) == expected


def test_c6_agent_names():
    e = raw_env(num_players=5)
    e.reset(seed=1)
    assert e.possible_agents == [f"player_{s}" for s in range(5)]
    assert e.agent_selection == f"player_{int(e.state_.current_player[0])}"


def _random_trace(game: TripoliGame, seed: int, rng_seed: int) -> list:
    state = game.init(seed)
    rng = np.random.default_rng(rng_seed)
    trace = [(int(state.current_player[0]), state.legal_action_mask[0].copy(), state.rewards[0].copy())]
    while not state.terminated[0]:
        a = int(rng.choice(np.flatnonzero(state.legal_action_mask[0])))
        game.step(state, a)
        trace.append((int(state.current_player[0]), state.legal_action_mask[0].copy(), state.rewards[0].copy()))
    return trace


def test_c7_same_seed_same_game_at_any_batch_size():
    game = TripoliGame(4, num_deals=2)
    a, b = _random_trace(game, 21, 5), _random_trace(game, 21, 5)
    assert len(a) == len(b) and all(x[0] == y[0] and (x[1] == y[1]).all() and (x[2] == y[2]).all()
                                    for x, y in zip(a, b, strict=True))
    # A batch of 6 tables seeded 40..45 plays exactly like 6 single tables with those seeds.
    singles = [_random_trace(game, 40 + i, 100 + i) for i in range(6)]
    state = game.init(40, batch_size=6)
    rngs = [np.random.default_rng(100 + i) for i in range(6)]
    for step in range(max(len(s) for s in singles)):
        for i in range(6):
            if step < len(singles[i]):
                cp, mask, rew = singles[i][step]
                assert int(state.current_player[i]) == cp
                assert (state.legal_action_mask[i] == mask).all() and (state.rewards[i] == rew).all()
            else:
                assert state.terminated[i]
        acts = [int(rngs[i].choice(np.flatnonzero(state.legal_action_mask[i]))) if not state.terminated[i] else 0
                for i in range(6)]
        game.step(state, np.array(acts))
    assert state.terminated.all()


def test_c8_forced_pass_at_max_bid():
    t = deck_m(max_bid=3, paycards="play")
    t.play("auction")
    # Seat 0 bids the maximum: seat 1 can only pass, which the engine does; seat 0 wins and pays the dealer.
    assert t.play("bid 3") == [-3, 0, 3]
    assert t.player == 0 and all(n.startswith("select") for n in t.legal())
    t = deck_m(max_bid=3, paycards="play", auto_forced=False)
    t.play("auction", "bid 3")
    assert t.player == 1 and t.legal() == {"pass"}
    assert t.play("pass") == [-3, 0, 3]


def test_c9_illegal_action_refused_and_state_unchanged():
    t = deck_m(**FAST)
    before = t.state.copy()
    with pytest.raises(IllegalActionError) as err:
        t.game.step(t.state, t.game.action_id("call"))
    msg = str(err.value)
    assert "call" in msg and "check" in msg and "bet 10" in msg
    for field in before.__dataclass_fields__:
        assert np.array_equal(getattr(before, field), getattr(t.state, field)), field
    e = make_env(num_players=3, **FAST)
    e.reset(seed=1)
    saved = e.unwrapped.state_.copy()
    with pytest.raises(IllegalActionError):
        e.step(e.unwrapped.game.action_id("lead ♠"))
    for field in saved.__dataclass_fields__:
        assert np.array_equal(getattr(saved, field), getattr(e.unwrapped.state_, field)), field
    with pytest.raises(IllegalActionError):
        e.step(10_000)


VARIANTS = [
    {},
    {"spare_hand": "swap_only", "first_lead": "lowest"},
    {"spare_hand": "none", "paycards": "play", "poker_opener": "dealer"},
    {"poker_select": "best", "michigan_leader": "dealer", "lead_colours": "alternate"},
    {"pay_suit": "auction", "michigan_leader": "left_of_dealer", "sequence_start": 6},
    {"num_deals": 3, "max_bid": 2, "bet_limit": 2, "max_raises": 1},
    {"num_deals": 2, "final_round": False, "auto_forced": False},
]


@pytest.mark.parametrize("options", VARIANTS)
def test_c10_c11_t29_chips_conserved_and_rewards_are_balance_changes(options):
    """At every step of random games: rewards = balance changes (C11, T29), balances + layout = 0 (C10)."""
    for n in (2, 5, 9):
        game = TripoliGame(n, **options)
        state = game.init(1000 * n, batch_size=12)
        rng = np.random.default_rng(n)
        assert (state.rewards == state.balance).all()
        while not state.terminated.all():
            before = state.balance.copy()
            mask = state.legal_action_mask
            acts = np.where(state.terminated, 0, (rng.random(mask.shape) * mask).argmax(axis=1))
            game.step(state, acts)
            assert (state.balance - before == state.rewards).all()
            assert (state.balance.sum(axis=1) + state.layout.sum(axis=1) == 0).all()
            assert (state.layout >= 0).all()


def test_c11_env_rewards_sum_to_net_result():
    e = make_env(num_players=4, num_deals=2)
    e.reset(seed=8)
    total = dict.fromkeys(e.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    balance = e.unwrapped.state_.balance[0]
    assert [total[a] for a in e.possible_agents] == [float(b) for b in balance]


def test_c12_hidden_cards_do_not_change_observation():
    """Deck M with 2♦ (seat 1) and 4♥ (seat 2) exchanged, and K♣ (spare) and 3♦ (seat 1) exchanged: no pay card
    or sequence changes hands, so seat 0 sees exactly the same game while seat 1's own hand differs."""
    other = dict(M_HANDS)
    other[1] = M_HANDS[1].replace("2d", "4h").replace("3d", "Kc")
    other[2] = M_HANDS[2].replace("4h", "2d")
    spare = M_SPARE.replace("Kc", "3d")
    a = Table(3, M_HANDS, M_SPARE, dealer=2, spare_hand="none")
    b = Table(3, other, spare, dealer=2, spare_hand="none")
    for step in range(6):
        assert (a.game.observe(a.state, 0) == b.game.observe(b.state, 0)).all(), step
        assert (a.game.observe(a.state, 1) != b.game.observe(b.state, 1)).any()
        if step < 5:
            assert a.legal() == b.legal()
            a.select_lowest(1)
            b.select_lowest(1)
    assert a.game.render_table(a.state, 0, 0) == b.game.render_table(b.state, 0, 0)


def test_c13_episode_end_and_finished_table_is_noop():
    t = Table(3, P_HANDS, P_SPARE, dealer=2, michigan_leader="left_of_dealer", **FAST)
    t.play("check", "check", "check")
    t.play("lead ♦")
    assert t.done and t.player == -1 and not t.state.legal_action_mask.any()
    before = t.state.copy()
    t.game.step(t.state, 0)
    assert (t.state.rewards == 0).all() and t.state.forced_count[0] == 0  # this step did nothing (C8, C11)
    assert all(np.array_equal(getattr(before, f), getattr(t.state, f)) for f in before.__dataclass_fields__
               if f not in ("rewards", "forced_count"))
    e = make_env(num_players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.agents == [] and bool(e.unwrapped.state_.terminated[0])


# ===================================================================================== T1–T5
def test_t1_table_sizes_and_deck():
    for n in range(2, 10):
        assert TripoliGame(n).init(0).legal_action_mask.any()
    for bad in (1, 10, 0):
        with pytest.raises(ConfigError, match="2 to 9"):
            TripoliGame(bad)
    game = TripoliGame(4)
    with pytest.raises(ValueError, match="52"):
        game.init(0, decks=np.arange(51)[None, :])
    with pytest.raises(ValueError):
        game.init(0, decks=np.array([[0] * 52]))


def test_t2_t28_layout_carried_to_next_deal_and_dealer_moves_left():
    t = Table(2, K_HANDS, K_SPARE, dealer=0, michigan_leader="left_of_dealer", poker_select="best", num_deals=2,
              final_round=False)
    assert t.init_rewards == [-9, -9] and t.layout() == [2] * 9
    assert t.player == 0 and t.legal() == {"keep", "swap", "auction"}
    assert t.play("keep") == [0, 6]  # 10♥, K♥, 8♥9♥10♥ to seat 1 (2 chips each)
    t.play("check")
    assert t.play("check") == [2, 0]
    t.play("lead ♣")
    # The deal ends with nobody able to lead (kitty +6); the next deal's ante follows in the same step.
    assert t.play("lead ♦") == [-5 - 9, -1 - 9]
    assert t.layout() == [4, 2, 4, 4, 2, 4, 2, 10, 2]
    assert not t.done and t.player == 1 and t.legal() == {"keep", "swap", "auction"}
    assert int(t.state.dealer[0]) == 1
    while not t.done:
        t.play_lowest()


def test_t3_t4_worked_check_fresh_layout_four_players():
    t = Table(4, dealer=0, seed=5)
    assert t.init_rewards == [-9, -9, -9, -9] and t.balances == [-9] * 4
    assert t.layout() == [4] * 9


def test_t5_dealing_order_and_hand_sizes():
    """Ordered deck 0..51, 4 players, dealer 3: hand j (seat j) gets cards j, j+5, …; the spare 4, 9, …, 49.
    52 mod 5 = 2: seats 0 and 1 get 11 cards, seats 2, 3 and the spare 10."""
    t = Table(4, deck=list(range(52)), dealer=3, spare_hand="none")
    for seat, size in [(0, 11), (1, 11), (2, 10), (3, 10)]:
        assert t.player == seat
        assert t.selectable() == set(range(seat, 52, 5)) and len(t.selectable()) == size
        t.select_lowest()
    assert int(t.state.spare[0]) == sum(1 << c for c in range(4, 52, 5))


def test_t5_seeded_deal_uses_the_seed_shuffle():
    n, seed = 5, 77
    t = Table(n, dealer=None, seed=seed, spare_hand="none")
    dealer = int(uniform_ints(np.array([seed], dtype=np.uint64), STREAM_DEALER, 0, n)[0])
    deck = shuffled_decks(np.array([seed], dtype=np.uint64), 0, 52)[0]
    assert t.player == (dealer + 1) % n
    assert t.selectable() == {int(c) for c in deck[0::n + 1]}


# ===================================================================================== T6–T9 spare hand
SPARE_OPTS = {"paycards": "play"}  # no pay cards on the deal: the spare-phase steps move only auction chips


def selections_until(t: Table, seat: int) -> None:
    while t.player != seat:
        t.select_lowest()


def test_t6_choices_and_keep():
    t = deck_m(**SPARE_OPTS)
    assert t.player == 2 and t.legal() == {"keep", "swap", "auction"}
    assert t.play("keep") == [0, 0, 0]
    assert t.player == 0 and t.selectable() == set(cards(M_HANDS[0]))


def test_t6_swap_then_keep():
    t = deck_m(**SPARE_OPTS)
    t.play("swap")
    assert t.player == 2 and t.legal() == {"keep", "auction"}
    t.play("keep")
    assert int(t.state.spare[0]) == sum(1 << c for c in cards(M_HANDS[2]))
    selections_until(t, 2)
    assert t.selectable() == set(cards(M_SPARE))


def test_t6_swap_then_auction_of_the_old_hand():
    t = deck_m(**SPARE_OPTS)
    t.play("swap", "auction")
    assert t.player == 0 and t.legal() == {"pass"} | names("bid", 1, 20)
    t.play("bid 1")
    assert t.play("pass") == [-1, 0, 1]
    assert t.player == 0 and t.selectable() == set(cards(M_HANDS[2]))  # seat 0 bought the dealer's old hand
    t.select_lowest()
    selections_until(t, 2)
    assert t.selectable() == set(cards(M_SPARE))


def test_t6_swap_then_auction_without_bid_ends_the_phase():
    t = deck_m(**SPARE_OPTS)
    t.play("swap", "auction", "pass")
    assert t.play("pass") == [0, 0, 0]
    assert t.player == 0 and t.selectable() == set(cards(M_HANDS[0]))


def test_t6_auction_without_bid_then_dealer_keeps_or_swaps():
    t = deck_m(**SPARE_OPTS)
    t.play("auction", "pass", "pass")
    assert t.player == 2 and t.legal() == {"keep", "swap"}
    t.play("swap")
    assert t.player == 0 and t.selectable() == set(cards(M_HANDS[0]))
    selections_until(t, 2)
    assert t.selectable() == set(cards(M_SPARE))


def test_t7_auction_bids_must_rise_winner_pays_dealer_old_hand_dead():
    t = deck_m(**SPARE_OPTS)
    t.play("auction")
    assert t.player == 0 and t.legal() == {"pass"} | names("bid", 1, 20)
    t.play("bid 2")
    assert t.player == 1 and t.legal() == {"pass"} | names("bid", 3, 20)
    t.play("bid 4")
    assert t.player == 0 and t.legal() == {"pass"} | names("bid", 5, 20)
    assert t.play("pass") == [0, -4, 4]  # all but the high bidder passed
    assert int(t.state.dead[0]) == sum(1 << c for c in cards(M_HANDS[1]))
    assert t.player == 0 and t.selectable() == set(cards(M_HANDS[0]))
    t.select_lowest()
    assert t.player == 1 and t.selectable() == set(cards(M_SPARE))


def test_t7_single_bidder_wins_at_once():
    t = Table(2, K_HANDS, K_SPARE, dealer=0, paycards="play", poker_select="best")
    t.play("auction")
    assert t.player == 1
    assert t.play("bid 5") == [5, -5]  # no other bidder: the auction is over
    assert t.player == 1 and "check" in t.legal()


def test_t7_max_bid_option():
    t = deck_m(max_bid=4, **SPARE_OPTS)
    t.play("auction")
    assert t.legal() == {"pass"} | names("bid", 1, 4)


def test_t8_swap_only_and_none():
    t = deck_m(spare_hand="swap_only", **SPARE_OPTS)
    assert t.player == 2 and t.legal() == {"keep", "swap"}
    t.play("swap")
    assert t.player == 0 and t.selectable() == set(cards(M_HANDS[0]))  # no auction after the swap
    t = deck_m(spare_hand="none", **SPARE_OPTS)
    assert t.player == 0 and t.selectable() == set(cards(M_HANDS[0]))


def test_t9_dead_hand_and_spare_out_of_play():
    """Seat 1 buys the spare for 4. Pay cards: seat 2 takes the hearts (18) and shares the sequence with seat 0;
    seat 1's dead 8♦9♦10♦ does not count: 1 each, 1 stays. In the Michigan stage 8♠ is dead: 6♠ 7♠ stop, seat 0
    must lead clubs 2♣..Q♣ and goes out (K♣ is now seat 1's): kitty 3 and 13 + 13 cards."""
    t = deck_m(poker_select="best", michigan_leader="left_of_dealer")
    t.play("auction", "bid 2", "bid 4")
    assert t.play("pass") == [1, -4, 4 + 18 + 1]
    assert t.layout() == [0, 0, 0, 0, 0, 0, 1, 3, 3]
    t.play("check", "check")
    assert t.play("check") == [0, 1, 1]  # two royal flushes (spades, hearts) split 3: 1 stays
    assert t.legal() == {"lead ♣", "lead ♠"}
    assert t.play("lead ♠") == [3 + 26, -13, -13]
    assert t.done


# ===================================================================================== T10–T11 pay cards
def test_t10_worked_check_two_sequences_share_nine_chips():
    """9 players: 9 chips a space. Seats 0 and 1 hold 8-9-10 (clubs, spades): 4 each, 1 stays. A♥ → seat 2,
    K♥ Q♥ and K-Q → seat 3, 10♥ → seat 4; J♥ is in the spare (T9): the J space keeps its 9 chips."""
    t = Table(9, T10_HANDS, T10_SPARE, dealer=8, spare_hand="none")
    assert t.init_rewards == [-5, -5, 0, 18, 0, -9, -9, -9, -9]
    assert t.layout() == [0, 0, 0, 9, 0, 0, 1, 9, 9]


def test_t10_two_sequences_in_one_hand_take_one_share():
    hands = dict(T10_HANDS)
    hands[0], hands[4], hands[5] = "8c 9c Tc 8d 9d Td", "Th 5d 6d 7d 2c", "3c 4c Jd Qd Kd"
    t = Table(9, hands, T10_SPARE, dealer=8, spare_hand="none")
    assert t.init_rewards == [-5, -5, 0, 18, 0, -9, -9, -9, -9]
    assert t.layout()[6] == 1


def test_t10_pay_cards_on_the_deal_deck_m():
    t = deck_m(spare_hand="none")
    assert t.init_rewards == [-8, -8, 10]
    assert t.layout() == [0, 0, 0, 0, 0, 0, 0, 3, 3]


def test_t11_paycards_play_skips_stage_one():
    t = deck_m(spare_hand="none", paycards="play")
    assert t.init_rewards == [-9, -9, -9] and t.layout() == [3] * 9


# ===================================================================================== T26–T27 variants
def test_t26_pay_suit_auction_dealer_bids_first_winner_pays_kitty_and_names_suit():
    t = deck_m(pay_suit="auction", **FAST)
    assert t.init_rewards == [-9, -9, -9]  # implies pay cards in play
    assert t.player == 2 and t.legal() == {"pass"} | names("bid", 1, 20)
    t.play("bid 2")
    assert t.player == 0
    t.play("bid 3", "pass")
    assert t.player == 2 and t.legal() == {"pass"} | names("bid", 4, 20)
    assert t.play("pass") == [-3, 0, 0]
    assert t.layout()[7] == 6
    assert t.player == 0 and t.legal() == {f"name {s}" for s in ALL_SUITS}
    t.play("name ♦")
    assert t.player == 0 and "check" in t.legal()
    t.play("check", "check")
    assert t.play("check") == [0, 0, 3]
    assert t.legal() == {"lead ♥", "lead ♦"}
    # K♦ takes the K space (3); A♦ spare; hearts 3♥..A♥ pay nothing but 8♥9♥10♥ takes the sequence (3); seat 2
    # goes out: kitty 6, 13 + 13 cards.
    assert t.play("lead ♦") == [-13, -13, 3 + 3 + 6 + 26]


def test_t26_pay_suit_auction_without_bid_keeps_hearts():
    t = deck_m(pay_suit="auction", **FAST)
    t.play("pass", "pass")
    assert t.play("pass") == [0, 0, 0]
    assert t.player == 0 and "check" in t.legal()  # no suit to name
    t.play("check", "check", "check")
    # Hearts pay in play: 10, J, Q, K, K-Q, A and the sequence (7 × 3), then K♦ and out: kitty 3, 26 cards.
    assert t.play("lead ♥") == [-13, -13, 21 + 3 + 26]


def test_t26_dealer_may_win_the_pay_suit():
    t = deck_m(pay_suit="auction", **FAST)
    t.play("bid 1", "pass")
    assert t.play("pass") == [0, 0, -1]
    assert t.player == 2 and t.legal() == {f"name {s}" for s in ALL_SUITS}
    t.play("name ♣")
    assert int(t.state.pay_suit[0]) == 0 and t.layout()[7] == 4


def test_t27_sequence_start():
    t = deck_m(sequence_start=2, **FAST)  # 2-3-4: seats 0 (clubs) and 1 (diamonds); 2♥ is seat 1's
    assert t.init_rewards == [-8, -8, 9] and t.layout()[6] == 1
    t = deck_m(sequence_start=12, **FAST)  # Q-K-A: only seat 2 (hearts)
    assert t.init_rewards == [-9, -9, 12] and t.layout()[6] == 0


# ===================================================================================== T28–T29 episodes
def _play_to_end(t: Table) -> list[tuple[int, frozenset]]:
    trace = []
    while not t.done:
        trace.append((t.player, frozenset(t.legal())))
        t.play_lowest()
    return trace


def _final_round_hands(seed: int, num_deals: int, final_dealer: int, n: int) -> np.ndarray:
    deck = shuffled_decks(np.array([seed], dtype=np.uint64), num_deals, 52)[0]
    hands = np.zeros(n, dtype=np.uint64)
    for i in range(5 * n):
        hands[(final_dealer + 1 + i % n) % n] |= np.uint64(1 << int(deck[i]))
    return hands


def _expected_final_pay(total: int, winners: list[int], final_dealer: int, n: int) -> list[int]:
    pay = [0] * n
    for w in winners:
        pay[w] = total // len(winners)
    order = [s for s in ((final_dealer + 1 + k) % n for k in range(n)) if s in winners]
    for k in range(total % len(winners)):
        pay[order[k]] += 1
    return pay


@pytest.mark.parametrize(("seed", "n", "first_dealer"), [(3, 4, 0), (184886, 3, 1)])
def test_t28_final_round(seed, n, first_dealer):
    """num_deals=2 then the final round (dealer moved on once more): no ante, five cards each from the deck of deal
    number 2, no spare, no selection; all check and the best hand takes every chip of the layout. Seed 184886 gives
    seats 0 and 2 the same K-9-6-5-4 (K♣ 9♠ 6♣ 5♣ 4♦ and K♥ 9♣ 6♥ 5♦ 4♥; seat 1 J-high): the tie splits, the odd
    chip goes first to seat 2 (clockwise from seat 1, left of the final dealer 0)."""
    off = Table(n, dealer=first_dealer, seed=seed, num_deals=2, final_round=False)
    trace_off = _play_to_end(off)
    t = Table(n, dealer=first_dealer, seed=seed, num_deals=2)
    trace_on = []
    while len(trace_on) < len(trace_off):
        trace_on.append((t.player, frozenset(t.legal())))
        last = t.play_lowest()
    assert trace_on == trace_off and last == off.rewards  # the same two deals; the final round has no ante
    final_dealer = (first_dealer + 2) % n
    assert int(t.state.dealer[0]) == final_dealer
    total = sum(t.layout())
    hands = _final_round_hands(seed, 2, final_dealer, n)
    assert [int(h) for h in t.state.hands[0]] == [int(h) for h in hands]
    values = mask_rank(hands)
    winners = [s for s in range(n) if values[s] == values.max()]
    for k in range(n):
        assert t.player == (final_dealer + 1 + k) % n
        assert t.legal() == {"check"} | names("bet", 1, 10)
        rewards = t.play("check")
    assert t.done and t.layout() == [0] * 9
    assert rewards == _expected_final_pay(total, winners, final_dealer, n)
    if seed == 184886:
        assert winners == [0, 2] and total % 2 == 1 and rewards[2] == rewards[0] + 1


def test_t28_single_deal_has_no_final_round():
    t = Table(3, P_HANDS, P_SPARE, dealer=2, michigan_leader="left_of_dealer", final_round=True,
              **FAST)
    t.play("check", "check", "check", "lead ♦")
    assert t.done and sum(t.layout()) > 0


def test_t29_chips_left_on_layout_belong_to_nobody():
    t = Table(2, K_HANDS, K_SPARE, dealer=0, michigan_leader="left_of_dealer", **FAST)
    t.play("check", "check", "lead ♣", "lead ♦")
    assert t.done
    assert t.balances == [-9 + 2 - 5, -3 - 1]
    assert sum(t.balances) == -sum(t.layout()) == -16


# ===================================================================================== options
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"num_players": 10}, "num_players=10"),
    ({"num_players": 1}, "num_players=1"),
    ({"num_players": "4"}, "integer"),
    ({"colour": "red"}, "unknown option.*colour"),
    ({"spare_hand": "sometimes"}, "spare_hand='sometimes'.*'full'"),
    ({"max_bid": 0}, "max_bid=0.*1 to 100"),
    ({"max_bid": "5"}, "max_bid='5'"),
    ({"auto_forced": 1}, "auto_forced=1.*True or False"),
    ({"num_deals": 2.0}, "num_deals=2.0"),
    ({"sequence_start": 13}, "sequence_start=13"),
])
def test_bad_options_refused_at_construction(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        TripoliGame(**kwargs)
    with pytest.raises(ConfigError, match=match):
        raw_env(**kwargs)


def test_bad_reset_options_refused():
    e = raw_env(num_players=4)
    with pytest.warns(UserWarning, match="unknown option"):
        e.reset(seed=0, options={"deks": list(range(52))})
    with pytest.raises(ValueError, match="not both"):
        e.reset(seed=0, options={"deck": list(range(52)), "decks": [list(range(52))]})
    with pytest.raises(ValueError, match="dealer"):
        e.reset(seed=0, options={"dealer": 4})
    with pytest.raises(ValueError, match="exactly once"):
        e.reset(seed=0, options={"deck": [0] * 52})
    e.reset(seed=0, options={"deck": list(range(52)), "dealer": 3})
    assert e.agent_selection == "player_3"


def known(t: Table, viewer: int) -> int:
    """Cards ``viewer`` saw leave their hand unseen by others (observation block "known_elsewhere")."""
    lo, hi = OFFSETS["known_elsewhere"]
    bits = t.game.observe(t.state, viewer)[0, lo:hi]
    return sum(1 << c for c in range(52) if bits[c])


def test_c12_t7_old_hands_known_only_to_their_owners():
    def mask(text: str) -> int:
        return sum(1 << c for c in cards(text))

    t = deck_m(**SPARE_OPTS)
    t.play("auction", "bid 2", "bid 4", "pass")  # seat 1 buys the spare: its old hand is dead
    assert [known(t, v) for v in range(3)] == [0, mask(M_HANDS[1]), 0]
    t = deck_m(**SPARE_OPTS)
    t.play("swap", "auction", "bid 1", "pass")  # seat 0 buys the dealer's old hand
    assert [known(t, v) for v in range(3)] == [mask(M_HANDS[0]), 0, mask(M_HANDS[2])]
    # The dealer took the spare's cards unseen: seat 0 never sees them.
    assert not card_bits_overlap(t, mask(M_SPARE))


def card_bits_overlap(t: Table, cards_mask: int) -> bool:
    """Whether any observation of a seat that never held these cards shows one of them in a card block."""
    obs = t.game.observe(t.state, 0)[0]
    for block in ("hand", "selected", "known_elsewhere", "played", "last_card"):
        lo, hi = OFFSETS[block]
        if any(obs[lo + c] for c in range(52) if cards_mask >> c & 1):
            return True
    return False
