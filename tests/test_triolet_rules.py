"""Per-rule tests of Le triolet (docs/triolet.md L1–L17 and the common rules they use), each on a scripted,
stacked deal with hand-computed expectations. Seat ``s`` is dealt deck positions ``9s..9s+8``: face-down #1–#3,
face-up, hand; the stock follows. With dealer 1 play goes 0 → n-1 → … → 1 (L5)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.cards import DECK_SIZE, parse_card
from envs.core.config import ConfigError
from envs.core.game import IllegalActionError
from envs.triolet import observation as ob
from envs.triolet.core import TrioletGame


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def stack(n: int, hands=None, faceup=None, facedown=None, stock: str = "", **options):
    """A game and a stacked deck with the named cards where given (seat → "9s 8c 3c"); other positions get the
    unused cards in id order. A card named twice is the second deck's copy the second time (C3)."""
    game = TrioletGame(n, **options)
    front: list[int | None] = [None] * (9 * n + len(stock.split()))
    used: set[int] = set()

    def place(pos: int, names: str) -> None:
        for i, c in enumerate(cards(names)):
            cid = c if c not in used else c + DECK_SIZE
            used.add(cid)
            front[pos + i] = cid

    for rows, offset in ((facedown, 0), (faceup, 3), (hands, 6)):
        for seat, text in (rows or {}).items():
            place(9 * seat + offset, text)
    place(9 * n, stock)
    spare = iter(c for c in game.cards if int(c) not in used)
    return game, game.stacked_deck([c if c is not None else int(next(spare)) for c in front])


def deal(n: int, hands=None, faceup=None, facedown=None, stock: str = "", dealer: int = 1, **options):
    """One table dealt from :func:`stack`, dealer 1 unless given."""
    game, deck = stack(n, hands, faceup, facedown, stock, **options)
    return game, game.init(0, decks=deck[None], dealers=np.array([dealer]))


def act(game, state, *names: str) -> None:
    for name in names:
        game.step(state, game.action_id(name))


def legal(game, state) -> set[str]:
    return {game.action_name(a) for a in np.flatnonzero(state.legal_action_mask[0])}


def all_ready(game, state) -> None:
    for _ in range(game.num_players):
        act(game, state, "ready")


def hand_of(state, seat: int) -> list[int]:
    return [c for c in range(DECK_SIZE) for _ in range(int(state.hand[0, seat, c]))]


# ----- L1–L3: cards and deal ---------------------------------------------------------------------------------------
def test_l1_deck_by_table_size():
    sizes = {3: 40, 4: 44, 5: 48, 6: 104, 7: 104, 8: 104}
    for n, size in sizes.items():
        game = TrioletGame(n)
        assert game.deck_size_for() == size
        ranks = np.bincount(game.cards % 13, minlength=13)
        stripped = {3: [2, 3, 4], 4: [2, 3], 5: [2]}.get(n, [])  # the 4s, 5s, 6s (rank ids 2, 3, 4)
        assert all(ranks[r] == 0 for r in stripped)
        assert all(ranks[r] == (8 if n >= 6 else 4) for r in range(13) if r not in stripped)
    assert list(TrioletGame(6).cards) == list(range(104))  # C3: the second deck is 52 + card


def test_l1_l3_worked_check_four_players_deal():
    game = TrioletGame(4)
    state = game.init(7, batch_size=3)
    total = state.hand.sum(axis=2) + (state.faceup >= 0).sum(axis=2) + (state.facedown >= 0).sum(axis=2)
    assert (total == 9).all()
    assert (state.hand.sum(axis=2) == 3).all() and (state.faceup >= 0).all() and (state.facedown >= 0).all()
    assert (44 - state.stock_pos == 8).all()


def test_l3_stacked_deal_positions():
    game, state = deal(4, hands={2: "Ac Kd 3h"}, faceup={2: "2c 2d 7s"}, facedown={2: "Ts Jh 9c"}, stock="Qs")
    assert sorted(hand_of(state, 2)) == sorted(cards("Ac Kd 3h"))
    assert list(state.faceup[0, 2]) == cards("2c 2d 7s")
    assert list(state.facedown[0, 2]) == cards("Ts Jh 9c")
    assert state.deck[0, state.stock_pos[0]] == parse_card("Qs")


def test_l2_rank_order_strictly_higher():
    """L2/L6: for every pair of ordinary ranks, the second may go on the first iff it is strictly higher in
    3 4 5 6 8 9 J Q K A 2 (a batch of 6-player tables, one per pair, so that every rank is in the deck)."""
    order = ["3", "4", "5", "6", "8", "9", "J", "Q", "K", "A", "2"]
    pairs = [(i, j) for i in range(len(order)) for j in range(len(order))]
    decks = [stack(6, hands={0: f"{order[i]}c 3d 3h", 5: f"{order[j]}s 7c 7d"})[1] for i, j in pairs]
    game = TrioletGame(6)
    state = game.init(0, len(pairs), decks=np.stack(decks), dealers=np.ones(len(pairs), dtype=np.int64))
    for _ in range(6):
        game.step(state, game.action_id("ready"))
    game.step(state, np.array([game.action_id(f"play 1×{order[i]}") for i, _ in pairs]))
    assert (state.current_player == 5).all()
    for b, (i, j) in enumerate(pairs):
        moves = {game.action_name(a) for a in np.flatnonzero(state.legal_action_mask[b])}
        assert (f"play 1×{order[j]}" in moves) == (j > i), (order[i], order[j])
        assert "play 1×7" in moves and "play 2×7" in moves  # L7


def test_l2_worked_check_king():
    """The pile shows a K; a player holding Q, 2 and 7 may play the 2 or the 7, not the Q."""
    game, state = deal(4, hands={0: "Kc 3c 3d", 3: "Qc 2c 7c"})
    all_ready(game, state)
    act(game, state, "play 1×K")
    assert state.current_player[0] == 3
    assert legal(game, state) == {"play 1×2", "play 1×7"}


# ----- L4, L5: swap phase, first player and direction --------------------------------------------------------------
def test_l4_swap_up_to_three_then_ready():
    game, state = deal(4, hands={0: "Kd Qd Jd"}, faceup={0: "3c 6c 8c"}, dealer=1)
    assert state.phase[0] == 0 and state.current_player[0] == 0  # L5: the first player swaps first
    moves = legal(game, state)
    # swaps name a place in the hand sorted by card id (J♦ Q♦ K♦) and a face-up slot (3♣ 6♣ 8♣)
    assert "ready" in moves and "swap hand card #3 ↔ face-up #1" in moves and len(moves) == 1 + 9
    act(game, state, "swap hand card #3 ↔ face-up #1")  # K♦ for 3♣
    assert list(state.faceup[0, 0]) == cards("Kd 6c 8c")
    assert sorted(hand_of(state, 0)) == sorted(cards("3c Qd Jd"))
    assert state.current_player[0] == 0  # one exchange per decision, same player again
    act(game, state, "swap hand card #3 ↔ face-up #2")  # the hand is now 3♣ J♦ Q♦: Q♦ for 6♣
    act(game, state, "swap hand card #3 ↔ face-up #3")  # 3♣ 6♣ J♦: J♦ for 8♣
    # after three exchanges only "ready" is left: a forced move (C8) and the next player (to the right) swaps
    assert state.current_player[0] == 3 and state.ready[0] == 1
    assert sorted(state.faceup[0, 0]) == sorted(cards("Kd Qd Jd"))
    obs = game.observe(state, np.array([2]))[0]  # L17: the face-up cards taken into the hand were seen
    seat0 = ob.SEATS + 2 * ob.SEAT_SIZE  # seat 0 is two places to seat 2's left in a 4-player table
    assert {c for c in range(52) if obs[seat0 + ob.KNOWN + c]} == set(cards("3c 6c 8c"))


def test_l4_l5_swap_round_then_first_player_plays():
    game, state = deal(4, dealer=2)
    seen = []
    for _ in range(4):
        seen.append(int(state.current_player[0]))
        act(game, state, "ready")
    assert seen == [1, 0, 3, 2]  # L5: dealer's right first, then to the right
    assert state.phase[0] == 1 and state.current_player[0] == 1


def test_l5_play_goes_to_the_right():
    game, state = deal(5, hands={0: "3c 3d 3h", 4: "5c 5d 5h", 3: "6c 6d 6h"}, dealer=1)
    all_ready(game, state)
    order = [int(state.current_player[0])]
    act(game, state, "play 1×3")
    order.append(int(state.current_player[0]))
    act(game, state, "play 1×5")
    order.append(int(state.current_player[0]))
    assert order == [0, 4, 3]


def test_c5_dealer_drawn_from_seed_or_given():
    game = TrioletGame(5)
    a, b = game.init(11, batch_size=64), game.init(11, batch_size=64)
    assert (a.dealer == b.dealer).all() and len(set(a.dealer.tolist())) > 1
    assert (game.init(11, batch_size=64, dealers=np.full(64, 3)).dealer == 3).all()


# ----- L6–L9: playing -----------------------------------------------------------------------------------------------
def test_l6_any_number_of_one_rank_and_fewer_than_before():
    game, state = deal(4, hands={0: "8c 8d 8h", 3: "9c 9d 3s"})
    all_ready(game, state)
    assert {"play 1×8", "play 2×8", "play 3×8"} <= legal(game, state)
    assert "play 4×8" not in legal(game, state)
    act(game, state, "play 2×8")  # need not play all the cards of that rank
    assert state.hand[0, 0, parse_card("8h")] == 1 and state.top[0] == 6 and state.run[0] == 2
    moves = legal(game, state)
    assert "play 1×9" in moves and "play 2×9" in moves and "play 1×3" not in moves  # fewer copies are fine


def test_l7_seven_on_anything_and_anything_on_seven():
    """Worked check: the pile shows a 7; any card may be played on it, a 3 included."""
    game, state = deal(4, hands={0: "2c 3c 3d", 3: "7c Kd Kh", 2: "3h Jc Qc"})
    all_ready(game, state)
    act(game, state, "play 1×2")
    # the 7 was seat 3's only legal card on a 2 (K does not beat 2): played as a forced move (C8)
    assert state.top[0] == 5 and state.current_player[0] == 2 and state.last_seat[0] == 3
    assert legal(game, state) == {"play 1×3", "play 1×J", "play 1×Q"}


def test_l8_ten_burns_and_plays_again():
    game, state = deal(4, hands={0: "Ac 3c 3d", 3: "Tc Kd 2h"}, stock="Qs Jd 9s")
    all_ready(game, state)
    act(game, state, "play 1×A")
    assert "play 1×10" in legal(game, state)  # a 10 goes on anything
    act(game, state, "play 1×10")
    assert state.pile[0].sum() == 0 and state.top[0] == -1
    assert state.burned[0].sum() == 2 and state.burned[0, parse_card("Ac")] == 1 and state.burned[0, parse_card("Tc")]
    assert state.current_player[0] == 3 and state.last_burn[0]  # L14: the same player plays again
    assert legal(game, state) == {"play 1×K", "play 1×2", "play 1×J"}  # Kd 2h and the drawn Jd, on an empty pile


def test_l9_worked_check_four_nines_on_eight():
    game, state = deal(4, hands={0: "9c 8c 3c", 3: "9d 9h 9s", 2: "8d 3d 3h", 1: "3s 6c 6d"}, stock="Jc Jd Jh Js")
    all_ready(game, state)
    act(game, state, "play 1×9")  # seat 3 cannot put a 9 on a 9: forced pick-up (L11)
    assert state.current_player[0] == 2 and state.hand[0, 3, 7::13].sum() == 4
    act(game, state, "play 1×8")  # seat 1 (3 5 6) cannot beat an 8: forced pick-up, then seat 0
    assert state.current_player[0] == 0 and state.pile[0].sum() == 0
    act(game, state, "play 1×8")
    assert state.current_player[0] == 3
    assert {"play 1×9", "play 4×9"} <= legal(game, state)
    act(game, state, "play 4×9")
    assert state.pile[0].sum() == 0 and state.burned[0].sum() == 5  # the 8 and four 9s
    assert state.current_player[0] == 3  # plays again (L14)


def test_l9_four_sevens_by_different_players_burn():
    """Worked check: four 7s played one after another by different players burn; the fourth player plays again."""
    game, state = deal(4, hands={0: "7c 3c 3d", 3: "7d Kc Kd", 2: "7h Qc Qd", 1: "7s Jc Jd"})
    all_ready(game, state)
    for seat in (0, 3, 2):
        assert state.current_player[0] == seat
        act(game, state, "play 1×7")
        assert state.run[0] == [0, 3, 2].index(seat) + 1
    assert state.current_player[0] == 1
    act(game, state, "play 1×7")
    assert state.burned[0].sum() == 4 and state.pile[0].sum() == 0 and state.current_player[0] == 1


def test_l9_five_of_a_rank_at_once_burn_with_two_decks():
    game, state = deal(
        6,
        hands={0: "9s 8c 3c", 5: "7c 5c 6c", 4: "9c 8d 5d", 3: "9c 9d 9h", 2: "8h 3d 5h", 1: "3h 5s 6d"},
        stock="Jc 6h Jd Qc Qd",
    )
    all_ready(game, state)
    act(game, state, "play 1×9")  # seat 5 can only play its 7 (forced), then seat 4
    assert state.current_player[0] == 4 and state.top[0] == 5
    act(game, state, "play 1×9")  # seat 3 cannot beat a 9: picks up 9 7 9 (forced); seat 2 on an empty pile
    assert state.current_player[0] == 2 and state.hand[0, 3, 7::13].sum() == 5
    act(game, state, "play 1×8")  # seat 1 (3 5 6) picks up; seat 0 on an empty pile
    act(game, state, "play 1×8")  # seat 5 (5 6 6) picks up; seat 4
    assert state.current_player[0] == 4
    act(game, state, "play 1×8")
    assert state.current_player[0] == 3 and "play 5×9" in legal(game, state)
    act(game, state, "play 5×9")
    assert state.pile[0].sum() == 0 and state.burned[0].sum() == 6 and state.current_player[0] == 3


# ----- L10, L11: drawing and picking up -----------------------------------------------------------------------------
def test_l10_draw_back_to_three_while_the_stock_lasts():
    game, state = deal(5, hands={0: "8c 8d 8h"}, stock="Jc Jd Jh")
    all_ready(game, state)
    act(game, state, "play 2×8")
    assert sorted(hand_of(state, 0)) == sorted(cards("8h Jc Jd")) and state.stock_pos[0] == 47
    game, state = deal(5, hands={0: "8c 8d 8h"}, stock="Jc Jd Jh")
    all_ready(game, state)
    act(game, state, "play 3×8")
    assert sorted(hand_of(state, 0)) == sorted(cards("Jc Jd Jh")) and state.stock_pos[0] == 48
    assert (game.observe(state, np.array([0]))[0, ob.STOCK]) == 0


def test_l10_stock_runs_out_mid_draw():
    game, state = deal(5, hands={0: "8c 8d 8h", 4: "9c 9d 3c"}, stock="Jc Jd Jh")
    all_ready(game, state)
    act(game, state, "play 1×8", "play 2×9")
    assert len(hand_of(state, 0)) == 3 and len(hand_of(state, 4)) == 3  # 1 drawn, then 2 drawn: stock empty
    game, state = deal(5, hands={0: "8c 8d 8h", 4: "9c 9d 3c"}, stock="Jc Jd Jh")
    all_ready(game, state)
    act(game, state, "play 2×8", "play 2×9")
    assert len(hand_of(state, 4)) == 2 and state.stock_pos[0] == 48  # only one card was left for seat 4


def test_l11_cannot_play_picks_up_and_must_play_if_able():
    game, state = deal(4, hands={0: "Ac 3c 3d", 3: "Kc 7c 2c", 2: "Qc Qd Jc"})
    all_ready(game, state)
    act(game, state, "play 1×A")
    assert "pick up the pile" not in legal(game, state)  # seat 3 can play its 2, so it must play
    act(game, state, "play 1×2")
    # seat 2 cannot beat a 2: it takes the pile (A, 2) into its hand and its turn ends (forced, C8)
    assert state.current_player[0] == 1 and state.pile[0].sum() == 0
    assert sorted(hand_of(state, 2)) == sorted(cards("Qc Qd Jc Ac 2c"))
    obs = game.observe(state, np.array([0]))[0]  # L17: the picked-up cards are public
    seat2 = ob.SEATS + 2 * ob.SEAT_SIZE
    assert {c for c in range(52) if obs[seat2 + ob.KNOWN + c]} == set(cards("Ac 2c"))
    assert obs[seat2 + ob.HAND_COUNT] == 5


def test_c8_forced_moves_asked_when_auto_forced_off():
    game, state = deal(4, hands={0: "Ac 3c 3d", 3: "Kc Kd Qc"}, auto_forced=False)
    all_ready(game, state)
    act(game, state, "play 1×A")
    assert state.current_player[0] == 3 and legal(game, state) == {"pick up the pile"}
    act(game, state, "pick up the pile")
    assert state.current_player[0] == 2 and state.hand[0, 3].sum() == 4


# ----- L12–L15: face-up, face-down, playing again, going out -------------------------------------------------------
def late_deal(up: str = "2c 2h 2s", down: str = "Jc 6s 3s", **options):
    """5 players (stock of 3): seat 0 burns with three 10s, draws the stock (K K K) and empties its hand."""
    return deal(5, facedown={0: down}, faceup={0: up}, stock="Kc Kd Kh",
                hands={0: "Tc Td Th", 4: "Ac Ad Jd", 3: "3c 5c 6c", 2: "3d 5d 6d", 1: "8c 8d 9c"}, **options)


def _to_faceup(up: str = "2c 2h 2s", down: str = "Jc 6s 3s", **options):
    game, state = late_deal(up, down, **options)
    all_ready(game, state)
    act(game, state, "play 3×10")  # burns (L8); draws K K K (L10); plays again (L14)
    assert state.current_player[0] == 0 and sorted(hand_of(state, 0)) == sorted(cards("Kc Kd Kh"))
    act(game, state, "play 3×K")  # hand and stock now empty
    act(game, state, "play 1×A")  # seat 4; seat 3 (3 5 6) cannot beat an A: picks up (forced)
    act(game, state, "play 1×5")  # seat 2 on the empty pile
    act(game, state, "play 1×8")  # seat 1
    return game, state


def test_l12_face_up_one_card_at_a_time():
    game, state = _to_faceup()
    assert state.current_player[0] == 0 and state.hand[0, 0].sum() == 0 and state.stock_pos[0] == 48
    assert legal(game, state) == {"play face-up 2♣", "play face-up 2♥", "play face-up 2♠"}
    act(game, state, "play face-up 2♥")  # seat 4 (A J) cannot beat it and picks it up
    assert list(state.faceup[0, 0]) == [parse_card("2c"), -1, parse_card("2s")]
    assert state.hand[0, 4, parse_card("2h")] == 1 and state.hand[0, 0].sum() == 0


def test_l12_faceup_sets_option():
    game, state = _to_faceup(faceup_sets=True)
    assert legal(game, state) == {"play face-up 2♣", "play face-up 2♥", "play face-up 2♠", "play face-up 2×2",
                                  "play face-up 3×2"}
    act(game, state, "play face-up 3×2")  # seat 4 (A J) cannot beat the 2s and picks them up
    assert (state.faceup[0, 0] == -1).all() and state.hand[0, 4, 0::13].sum() == 3


def test_l12_face_up_none_playable_picks_up_and_keeps_them():
    game, state = _to_faceup(up="2c 3h 3s", down="Jc 6s 5s")
    # on the 8 only the 2♣ could go: played as a forced move; seat 4 (A J) cannot beat it and picks up
    assert list(state.faceup[0, 0]) == [-1, parse_card("3h"), parse_card("3s")] and state.current_player[0] == 3
    act(game, state, "play 1×A")  # seat 3; seat 2 (3 6) cannot beat it: picks up
    act(game, state, "play 1×9")  # seat 1 on the empty pile; seat 0's 3♥ 3♠ cannot go on a 9: forced pick-up
    assert hand_of(state, 0) == cards("9c") and state.current_player[0] == 4 and state.pile[0].sum() == 0
    assert list(state.faceup[0, 0]) == [-1, parse_card("3h"), parse_card("3s")]  # the face-up cards stay
    act(game, state, "play 1×5", "play 1×6")  # seats 4, 3; seat 2 (3 6 A) must play its A, seat 1 (8) picks up
    # seat 0 must now play from its hand (the 9), not its face-up cards, on the empty pile: a forced move
    assert state.last_seat[0] == 0 and game.action_name(int(state.last_action[0])) == "play 1×9"
    assert state.hand[0, 0].sum() == 0 and list(state.faceup[0, 0]) == [-1, parse_card("3h"), parse_card("3s")]


def test_l13_face_down_played_or_picked_up_with_the_pile():
    game, state = _to_faceup(faceup_sets=True)
    act(game, state, "play face-up 3×2")  # seat 4 (Ad Jd) cannot beat a 2: picks up
    act(game, state, "play 1×3")  # seat 3; seat 2 (3d 6d) can only play its 6: forced
    act(game, state, "play 1×9")  # seat 1
    assert state.current_player[0] == 0
    assert legal(game, state) == {"play face-down #1", "play face-down #2", "play face-down #3"}
    obs = game.observe(state, np.array([0]))[0]  # L17: own face-down cards are hidden; only the slots show
    assert list(obs[ob.SEATS + ob.FACEDOWN : ob.SEATS + ob.FACEDOWN + 3]) == [1, 1, 1]
    act(game, state, "play face-down #1")  # the J goes on the 9
    assert state.top[0] == 9 and state.last_card[0] == parse_card("Jc") and state.facedown[0, 0, 0] == -1
    assert "player_0: play face-down #1 (turned J♣)" in game.render_table(state, 0, None)  # seen by all (L13)
    act(game, state, "play 1×A")  # seat 4; seat 3 cannot beat an A: picks up; seat 2 (3d) must play it: forced;
    # seat 1 (8d) must play it: forced; seat 0 on an 8
    assert state.current_player[0] == 0 and state.top[0] == 6
    act(game, state, "play face-down #2")  # 6♠ cannot go on an 8: pile and card go into the hand
    assert sorted(hand_of(state, 0)) == sorted(cards("3d 8d 6s"))
    assert state.pile[0].sum() == 0 and state.current_player[0] == 4
    obs = game.observe(state, np.array([1]))[0]
    seat0 = ob.SEATS + 4 * ob.SEAT_SIZE  # seat 0 is four places to seat 1's left
    assert obs[seat0 + ob.KNOWN + parse_card("6s")] == 0  # L13: the card that could not be played stays private
    assert obs[seat0 + ob.KNOWN + parse_card("8d")] == 1  # the pile it took was seen by all (L17)
    assert "(turned 6♠)" not in game.render_table(state, 0, 1) and "(turned 6♠)" in game.render_table(state, 0, 0)


def test_l13_show_failed_facedown_option_shows_it_to_all():
    game, state = _to_faceup(faceup_sets=True, show_failed_facedown=True)
    act(game, state, "play face-up 3×2", "play 1×3", "play 1×9", "play face-down #1", "play 1×A")
    act(game, state, "play face-down #2")  # 6♠ cannot go on an 8
    obs = game.observe(state, np.array([1]))[0]
    assert obs[ob.SEATS + 4 * ob.SEAT_SIZE + ob.KNOWN + parse_card("6s")] == 1  # seen by all (L13, L17)
    assert "player_0: play face-down #2 (turned 6♠)" in game.render_table(state, 0, None)


def _to_facedown(down: str):
    game, state = _to_faceup(down=down, faceup_sets=True)
    act(game, state, "play face-up 3×2", "play 1×3", "play 1×9")
    assert state.current_player[0] == 0 and state.top[0] == 7
    return game, state


def others_play_until_seat0(game, state) -> None:
    """The other seats take their lowest-numbered legal action until seat 0 is to act."""
    while not state.done[0] and state.current_player[0] != 0:
        game.step(state, int(np.flatnonzero(state.legal_action_mask[0])[0]))


def test_l14_burn_from_face_down_then_play_again_face_down():
    game, state = _to_facedown("Ts Jc 7s")
    act(game, state, "play face-down #1")  # the 10 burns the pile
    assert state.pile[0].sum() == 0 and state.burned[0, parse_card("Ts")] == 1
    assert state.current_player[0] == 0 and legal(game, state) == {"play face-down #2", "play face-down #3"}


def test_l14_l15_l16_out_after_burning_wins():
    game, state = _to_facedown("Jc 7s Ts")
    act(game, state, "play face-down #1")  # J on the 9
    others_play_until_seat0(game, state)
    act(game, state, "play face-down #2")  # a 7 goes on anything
    others_play_until_seat0(game, state)  # seat 0's last card is then its only move: played at once (C8)
    assert state.last_seat[0] == 0 and game.action_name(int(state.last_action[0])) == "play face-down #3"
    # the 10 burned the pile and seat 0 has no card left: it went out first and wins (L14, L15)
    assert state.terminated[0] and not state.truncated[0] and state.winner[0] == 0 and state.current_player[0] == -1
    assert state.burned[0, parse_card("Ts")] == 1 and state.last_burn[0]
    assert list(state.rewards[0]) == [1.0, -0.25, -0.25, -0.25, -0.25]  # L16: zero-sum


def test_l15_finished_table_is_a_no_op():
    game, state = _to_facedown("Jc 7s Ts")
    act(game, state, "play face-down #1")
    others_play_until_seat0(game, state)
    act(game, state, "play face-down #2")
    others_play_until_seat0(game, state)
    before = state.copy()
    game.step(state, 0)
    assert state.terminated[0] and (state.rewards == 0).all()
    assert (state.hand == before.hand).all() and not state.legal_action_mask.any()


def test_l16_c13_truncation_after_max_turns():
    game, state = deal(4, hands={0: "Tc 3c 3d", 3: "Kc Kd 8c", 2: "Ac 8d 9d"}, max_turns=3)
    all_ready(game, state)
    act(game, state, "play 1×10")  # turn 1 (burn), then seat 0 again: turn 2
    assert state.turns[0] == 1 and state.current_player[0] == 0
    act(game, state, "play 1×3")
    act(game, state, "play 1×K")  # turn 3: cut off
    assert state.truncated[0] and not state.terminated[0] and state.current_player[0] == -1
    assert (state.rewards == 0).all() and not state.legal_action_mask.any()


# ----- L17 and C9, C12: information and illegal actions -----------------------------------------------------------
def test_l17_c12_hidden_cards_do_not_reach_observations():
    """Own face-down cards, other hands and the stock are hidden: deals that differ only there look the same."""
    base = dict(hands={0: "Kc 3c 3d", 3: "Qc 2c 7c"}, faceup={1: "9c 9d 9h"})
    _, a = deal(4, facedown={0: "Ac Ad Ah", 2: "Jc Jd Jh"}, stock="8c 8d 8h", **base)
    _, b = deal(4, facedown={0: "8c 8d 8h", 2: "Ac Ad Ah"}, stock="Jc Jd Jh", **base)
    game = TrioletGame(4)
    for seat in range(4):
        assert (game.observe(a, np.array([seat])) == game.observe(b, np.array([seat]))).all()
    _, c = deal(4, hands={0: "Kc 3c 3d", 3: "Qc 2c 7h"}, faceup={1: "9c 9d 9h"}, facedown={0: "Ac Ad Ah"},
                stock="7c 8d 8h")
    _, d = deal(4, hands={0: "Kc 3c 3d", 3: "Qc 2c 7c"}, faceup={1: "9c 9d 9h"}, facedown={0: "Ac Ad Ah"},
                stock="7h 8d 8h")
    for seat in (0, 1, 2):
        assert (game.observe(c, np.array([seat])) == game.observe(d, np.array([seat]))).all()
    assert (game.observe(c, np.array([3])) != game.observe(d, np.array([3]))).any()  # seat 3 sees its own hand
    obs = game.observe(a, np.array([2]))[0]  # seat 1's face-up cards are public, three places to seat 2's left
    assert obs[ob.SEATS + 3 * ob.SEAT_SIZE + ob.FACEUP + parse_card("9d")] == 1


def test_c9_illegal_action_refused_state_unchanged():
    game, state = deal(4, hands={0: "Kc 3c 3d", 3: "Qc 2c 7c"})
    all_ready(game, state)
    act(game, state, "play 1×K")
    before = state.copy()
    with pytest.raises(IllegalActionError, match="play 1×Q"):
        act(game, state, "play 1×Q")
    with pytest.raises(IllegalActionError):
        game.step(state, 99999)
    for f in ("hand", "pile", "current_player", "legal_action_mask", "turns", "known"):
        assert (getattr(state, f) == getattr(before, f)).all()


def test_bad_options_and_table_sizes_refused():
    for bad in (dict(num_players=2), dict(num_players=9), dict(faceup_sets=1), dict(max_turns=0),
                dict(max_turns=True), dict(colour="red")):
        with pytest.raises(ConfigError):
            TrioletGame(**bad)
    game = TrioletGame(4)
    with pytest.raises(ValueError):
        game.init(0, decks=np.arange(52)[None])  # a 4-player deck has 44 cards
    with pytest.raises(ValueError):
        game.init(0, dealers=np.array([4]))
    with pytest.raises(ValueError):
        game.stacked_deck(cards("4c"))  # the 4s are out of a 4-player deck
