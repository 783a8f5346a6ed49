"""Tripoli rules added in v1, on scripted deals with hand-computed results: T7 ``dead_hand``, T28 ``final_round``
(``poker``, ``pots``, ``share``, ``none``), T30 Cosmo, and what the observation's auction fields mean."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.config import ConfigError
from envs.core.game import sample_legal
from envs.core.rng import STREAM_BOARD, uniform_ints
from envs.tripoli import kernels as K
from envs.tripoli.config import COSMO_FIXED, TripoliConfig
from envs.tripoli.core import TripoliGame
from envs.tripoli.observation import OFFSETS, SCALARS
from envs.tripoli.state import P_BET, P_DONE, P_LEAD, SPACE_POT
from tests.tripoli_helpers import M_HANDS, M_SPARE, Table, cards


def mask(text: str) -> int:
    return sum(1 << c for c in cards(text))


def card_block(t: Table, viewer: int, block: str) -> int:
    lo, hi = OFFSETS[block]
    bits = t.game.observe(t.state, viewer)[0, lo:hi]
    return sum(1 << c for c in range(52) if bits[c])


def scalar(t: Table, viewer: int, name: str) -> float:
    return float(t.game.observe(t.state, viewer)[0, OFFSETS["scalars"][0] + SCALARS.index(name)])


def auction_passed(t: Table, viewer: int) -> list[float]:
    lo, _ = OFFSETS["auction_passed"]
    return t.game.observe(t.state, viewer)[0, lo : lo + t.n].tolist()


# ============================================================================ T7 dead_hand and the auction fields
@pytest.mark.parametrize("dead_hand", ["hidden", "shown"])
def test_t7_dead_hand_hidden_or_shown_to_every_player(dead_hand: str) -> None:
    """Deck M, dealer 2 auctions the spare; seat 1 buys it for 4: with ``shown`` its old hand is public."""
    t = Table(3, M_HANDS, M_SPARE, dealer=2, paycards="play", dead_hand=dead_hand)
    t.play("auction", "bid 2", "bid 4")
    assert t.play("pass") == [0, -4, 4]
    old = mask(M_HANDS[1])
    assert int(t.state.dead[0]) == old
    for viewer in range(3):
        assert card_block(t, viewer, "dead_shown") == (old if dead_hand == "shown" else 0)
    assert card_block(t, 1, "known_elsewhere") == old  # the buyer knows their old hand either way
    assert card_block(t, 0, "known_elsewhere") == 0


def test_t7_dealer_swapped_hand_stays_face_down_with_shown() -> None:
    t = Table(3, M_HANDS, M_SPARE, dealer=2, paycards="play", dead_hand="shown")
    t.play("swap", "keep")
    for viewer in range(3):
        assert card_block(t, viewer, "dead_shown") == 0


def test_t7_auction_fields_describe_the_deals_last_auction_and_clear_each_deal() -> None:
    """The passes, high bid and high bidder of the deal's auction stay visible after it ends (through selection and
    betting) and are cleared when the next deal starts."""
    t = Table(3, M_HANDS, M_SPARE, dealer=2, paycards="play", num_deals=2, poker_select="best")
    t.play("auction", "bid 2", "bid 4", "pass")
    assert t.state.phase[0] == P_BET
    for viewer in range(3):
        assert scalar(t, viewer, "high_bid") == 4
    assert auction_passed(t, 0) == [1.0, 0.0, 1.0]  # seat 0 passed; the dealer (seat 2) never bids
    while int(t.state.deal[0]) == 0:
        t.play_lowest()
    assert scalar(t, 0, "high_bid") == 0 and auction_passed(t, 0) == [0.0, 0.0, 0.0]
    assert int(t.state.high_bidder[0]) == -1


# ============================================================================ T28 final_round
def test_t28_final_round_booleans_still_accepted() -> None:
    assert TripoliConfig(final_round=True).final_round == "poker"
    assert TripoliConfig(final_round=False).final_round == "none"
    with pytest.raises(ConfigError, match="final_pots"):
        TripoliConfig(final_pots=3)  # only with final_round='pots'
    with pytest.raises(ConfigError, match="final_pots"):
        TripoliConfig(final_round="pots", final_pots=10)


def end_of_last_deal(n: int, layout: list[int], **options) -> tuple[TripoliGame, object]:
    """A table of a 2-deal episode at the end of its last deal with this ``layout``: the layout is set by hand and the
    deal's end is run as the engine runs it when a deal ends (the settlement of T28 follows)."""
    game = TripoliGame(n, num_deals=2, spare_hand="none", poker_select="best", **options)
    s = game.init(3, dealers=np.array([0]))
    s.balance[0] = 0
    s.balance[0, 0] = -sum(layout)  # C10: the chips on the layout came from somewhere
    s.layout[0] = layout
    s.deal[0] = 1
    s.dealer[0] = 1
    rec, rules, extra = game.kernel_args(s)
    while K.end_deal(rec[0], rules, extra, 0):  # the kernels the step runs when a deal ends
        pass
    K.settle(rec[0], rules, extra, 0)
    return game, s


LAYOUT = [3, 0, 0, 0, 0, 2, 1, 5, 4]  # 15 chips


def test_t28_share_equal_shares_remainder_stays() -> None:
    _, s = end_of_last_deal(4, LAYOUT, final_round="share")
    assert s.balance[0].tolist() == [-15 + 3, 3, 3, 3]  # 15 // 4 = 3 each
    assert s.layout[0].sum() == 3 and s.layout[0, SPACE_POT] == 3  # 15 - 12 stays, belongs to nobody
    assert s.terminated[0] and s.phase[0] == P_DONE


def test_t28_none_leaves_the_layout() -> None:
    _, s = end_of_last_deal(4, LAYOUT, final_round="none")
    assert s.layout[0].tolist() == LAYOUT and s.terminated[0]


def test_t28_pots_two_rounds_larger_pot_first_dealer_moves_left() -> None:
    """15 chips in 2 pots: 8 then 7. Each round: the opener (left of the dealer, who moves left each round) bets 1,
    the others fold, so the opener wins the pot and gets the bet back."""
    game, s = end_of_last_deal(4, LAYOUT, final_round="pots", final_pots=2)
    assert s.layout[0].tolist() == [0] * 8 + [15]  # gathered on the pot space
    assert (s.final_pot[0], s.final_left[0, 0], s.deal[0], s.dealer[0]) == (8, 7, 2, 2)
    assert s.phase[0] == P_BET and s.current_player[0] == 3
    before = s.balance[0].copy()
    game.step(s, game.action_id("bet 1"))
    game.step(s, game.action_id("fold"))
    game.step(s, game.action_id("fold"))
    game.step(s, game.action_id("fold"))
    assert (s.balance[0] - before).tolist() == [0, 0, 0, 8]
    assert s.layout[0, SPACE_POT] == 7 and not s.terminated[0]
    assert (s.final_pot[0], s.deal[0], s.dealer[0], s.current_player[0]) == (7, 3, 3, 0)
    game.step(s, game.action_id("bet 1"))
    for _ in range(3):
        game.step(s, game.action_id("fold"))
    assert (s.balance[0] - before).tolist() == [7, 0, 0, 8]
    assert s.layout[0].sum() == 0 and s.terminated[0]


def test_t28_pots_without_chips_are_not_played() -> None:
    game, s = end_of_last_deal(3, [0, 0, 0, 0, 0, 0, 0, 1, 0], final_round="pots", final_pots=3)
    assert (s.final_pot[0], s.final_left[0].sum()) == (1, 0)  # 1 chip: pots 1, 0, 0 → one round
    game.step(s, game.action_id("bet 1"))
    game.step(s, game.action_id("fold"))
    game.step(s, game.action_id("fold"))
    assert s.terminated[0] and s.layout[0].sum() == 0


def test_t28_poker_one_round_for_the_whole_layout() -> None:
    game, s = end_of_last_deal(4, LAYOUT, final_round="poker")
    assert (s.final_pot[0], s.final_left[0].sum(), s.deal[0]) == (15, 0, 2)
    before = s.balance[0].copy()
    game.step(s, game.action_id("bet 1"))
    for _ in range(3):
        game.step(s, game.action_id("fold"))
    assert (s.balance[0] - before).tolist() == [0, 0, 0, 15] and s.terminated[0]


def test_t28_observation_shows_the_final_pots() -> None:
    game, s = end_of_last_deal(4, LAYOUT, final_round="pots", final_pots=3)
    obs = game.observe(s, 0)[0]
    lo = OFFSETS["scalars"][0]
    assert obs[lo + SCALARS.index("final_pot")] == 5 and obs[lo + SCALARS.index("final_pots_left")] == 2


# ============================================================================ T30 Cosmo
@pytest.mark.parametrize("option", COSMO_FIXED)
def test_t30_cosmo_refuses_stage_one_and_two_options(option: str) -> None:
    other = {"spare_hand": "none", "max_bid": 5, "paycards": "play", "pay_suit": "auction", "poker_select": "best",
             "poker_opener": "dealer", "bet_limit": 3, "max_raises": 1, "michigan_leader": "dealer",
             "first_lead": "lowest", "lead_colours": "alternate", "sequence_start": 6}
    with pytest.raises(ConfigError, match=f"{option}.*cosmo"):
        TripoliConfig(cosmo=True, **{option: other[option]})


def test_t30_cosmo_board_drawn_each_deal_left_of_dealer_leads() -> None:
    game = TripoliGame(4, cosmo=True, num_deals=3, final_round="none")
    s = game.init(np.arange(64), dealers=np.zeros(64, np.int64))
    seeds = np.arange(64, dtype=np.uint64)
    assert (s.pay_suit == uniform_ints(seeds, STREAM_BOARD, 0, 4)).all()
    assert (s.seq_rank + 2 == 2 + uniform_ints(seeds, STREAM_BOARD, 1, 11)).all()
    assert len(set(s.pay_suit.tolist())) == 4 and len(set(s.seq_rank.tolist())) > 5
    assert (s.phase == P_LEAD).all() and (s.current_player == 1).all()  # no spare, no poker: seat 1 leads
    assert not s.done.any()
    obs = game.observe(s, 2)
    lo = OFFSETS["pay_suit"][0]
    assert (obs[np.arange(64), lo + s.pay_suit] == 1).all()
    assert (obs[:, OFFSETS["scalars"][0] + SCALARS.index("sequence_start")] == s.seq_rank + 2).all()
    rng = np.random.default_rng(0)
    while (s.deal == 0).any() and not s.done.all():
        game.step(s, sample_legal(s.legal_action_mask, rng))
    later = np.flatnonzero(s.deal == 1)
    assert (s.pay_suit[later] == uniform_ints(seeds[later], STREAM_BOARD, 2, 4)).all()


def cosmo_out_in_one_lead() -> Table:
    """2 players, dealer 0: seat 1 (18 cards) holds every club and 2♦–6♦; seat 0 holds 7♦–A♦ and 8 hearts."""
    hands = {1: "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d 4d 5d 6d",
             0: "7d 8d 9d Td Jd Qd Kd Ad 2h 3h 4h 5h 6h 7h 8h 9h Th"}
    return Table(2, hands, "Jh Qh Kh Ah 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As", dealer=0, seed=11, cosmo=True)


def test_t30_cosmo_first_lead_asked_then_pot_goes_with_kitty() -> None:
    """Seat 1 must lead its lowest black card (2♣, the only legal lead, still asked: no episode ends at reset), runs
    the clubs to A♣, leads red (2♦, forced) and goes out at 6♦: it takes the kitty and the pot space (T30), the
    pay spaces won in play and 17 chips for seat 0's cards."""
    t = cosmo_out_in_one_lead()
    assert not t.done and t.player == 1 and t.legal() == {"lead ♣"}
    layout = t.layout()
    pay_suit = int(t.state.pay_suit[0])
    rewards = t.play("lead ♣")
    assert t.done
    won = layout[7] + layout[8] + 17  # kitty + pot + seat 0's cards
    if pay_suit == 0:  # clubs pay: seat 1 played A♣ K♣ Q♣ J♣ 10♣ and K♣ after Q♣ in one run
        won += sum(layout[:6])
    won += layout[6]  # whatever its start (2–12), the sequence in clubs was played by seat 1 in one run
    assert rewards[1] == won and rewards[0] == -17
    assert t.layout()[7:] == [0, 0]


def test_t30_cosmo_episode_never_over_at_reset() -> None:
    game = TripoliGame(2, cosmo=True)
    s = game.init(0, batch_size=4096)
    assert not s.done.any() and (s.current_player >= 0).all()
