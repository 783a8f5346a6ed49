"""Tripoli rules T12–T25 (poker and Michigan stages) on scripted deals; expected chips are worked out by hand.

Deck M (tests/tripoli_helpers.py, 3 players, dealer 2 so seat j gets hand j, 13 cards each):
seat 0: 6♠ 7♠ 2♣–Q♣; seat 1: 8♠ 2♥ 2♦–Q♦; seat 2: 3♥–A♥ K♦; spare: K♣ A♣ A♦ 2♠–5♠ 9♠–A♠.
Ante 1 chip a space from 3 players: 3 chips on every space. With pay cards on the deal (T10) seat 2 takes the five
heart spaces and K-Q (6 × 3 = 18) and the three of them (8♣9♣10♣, 8♦9♦10♦, 8♥9♥10♥) share the sequence space,
1 each: init rewards -8, -8, -9 + 18 + 1 = +10; the layout keeps kitty 3 and pot 3.
Poker with ``poker_select='best'``: seat 0 and seat 1 both have a queen-high straight flush, seat 2 a royal flush.
"""

from __future__ import annotations

import pytest

from envs.tripoli.observation import OFFSETS
from tests.tripoli_helpers import (
    FAST,
    H_HANDS,
    H_SPARE,
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


def deck_m(dealer: int = 2, **options) -> Table:
    return Table(3, M_HANDS, M_SPARE, dealer=dealer, **options)


# ----- T12 selection ---------------------------------------------------------------------------------------------
def test_t12_selection_in_turn_one_card_per_decision():
    t = deck_m(spare_hand="none")
    assert t.init_rewards == [-8, -8, 10]
    assert t.player == 0  # opener: left of dealer 2 (T13)
    assert t.legal() == {"select " + c for c in "6♠ 7♠ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣".split()}
    t.play("select 7♠")
    assert t.player == 0 and "select 7♠" not in t.legal() and len(t.legal()) == 12
    t.select("2♣ 3♣ 4♣ 5♣")
    assert t.player == 1  # five in a row, then the next player clockwise
    assert t.legal() == {"select " + c for c in "8♠ 2♥ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ Q♦".split()}
    t.select("2♥ 2♦ 3♦ 4♦ 6♦")  # a pair of twos, not seat 1's best hand
    t.select("3♥ 4♥ 5♥ 6♥ K♦")  # king high
    assert t.player == 0 and t.legal() == {"check"} | {f"bet {k}" for k in range(1, 11)}
    t.play("check", "check")
    # T12/T16: the selected hands are compared, not the best hands: 7-high, pair of twos, king-high.
    assert t.play("check") == [0, 3, 0]
    assert t.layout()[8] == 0


def test_t12_selection_completed_automatically_when_no_choice_left():
    """9 players: seats 2–8 hold exactly five cards, so only seats 0 and 1 (six cards) select."""
    t = Table(9, T10_HANDS, T10_SPARE, dealer=8, spare_hand="none")
    assert t.player == 0 and len(t.selectable()) == 6
    t.select_lowest(5)
    assert t.player == 1 and len(t.selectable()) == 6
    t.select_lowest(5)
    assert t.player == 0 and "check" in t.legal()


def test_t12_poker_select_best_has_no_selection():
    t = deck_m(**FAST)
    assert t.player == 0 and t.legal() == {"check"} | {f"bet {k}" for k in range(1, 11)}


# ----- T13 opener ------------------------------------------------------------------------------------------------
def test_t13_opener_left_of_dealer_and_dealer_variant():
    assert deck_m(**FAST).player == 0
    t = deck_m(poker_opener="dealer", **FAST)
    assert t.player == 2 and "check" in t.legal()
    t.play("check")
    assert t.player == 0
    sel = deck_m(spare_hand="none", poker_opener="dealer")
    assert sel.player == 2 and sel.selectable() == set(cards(M_HANDS[2]))  # T12: the opener selects first


# ----- T14 betting -----------------------------------------------------------------------------------------------
def test_t14_bet_call_raise_fold_and_raise_cap():
    t = deck_m(**FAST)
    assert t.legal() == {"check"} | {f"bet {k}" for k in range(1, 11)}
    assert t.play("bet 3") == [-3, 0, 0]
    after_bet = {"fold", "call"} | {f"raise {k}" for k in range(1, 11)}
    assert t.player == 1 and t.legal() == after_bet  # no check once a bet is made
    assert t.play("raise 2") == [0, -5, 0]  # call 3, then 2 more
    assert t.play("raise 1") == [0, 0, -6]  # call 5, then 1 more
    assert t.player == 0 and t.legal() == after_bet
    assert t.play("raise 4") == [-7, 0, 0]  # 3 in: call 3 more to 6, then 4: total 10; the third raise
    assert t.player == 1 and t.legal() == {"fold", "call"}  # max_raises=3 reached
    assert t.play("call") == [0, -5, 0]
    assert t.legal() == {"fold", "call"}
    # Seat 2 calls 4 to reach 10; all equal, all acted: showdown, the royal flush takes 3 antes + 30.
    assert t.play("call") == [0, 0, -4 + 33]
    assert t.layout()[8] == 0
    assert t.balances == [-8 - 10, -8 - 10, 10 - 10 + 33]


def test_t14_bet_limit_and_max_raises_options():
    t = deck_m(bet_limit=2, max_raises=0, **FAST)
    assert t.legal() == {"check", "bet 1", "bet 2"}
    t.play("bet 2")
    assert t.legal() == {"fold", "call"}


def test_t14_check_then_bet_then_checked_player_must_call_or_fold():
    t = deck_m(**FAST)
    t.play("check")
    assert t.play("bet 2") == [0, -2, 0]
    t.play("call")
    assert t.player == 0 and "check" not in t.legal() and {"fold", "call", "raise 1"} <= t.legal()
    # Everybody has put in 2 and acted since the bet: showdown, seat 2 takes 3 + 6.
    assert t.play("call") == [-2, 0, 9]


# ----- T15 end of betting ----------------------------------------------------------------------------------------
def test_t15_all_fold_but_one_takes_pot_without_showdown():
    t = deck_m(**FAST)
    t.play("bet 1", "fold")
    assert t.player == 2
    assert t.play("fold") == [4, 0, 0]  # 3 antes + own bet back
    assert t.layout()[8] == 0
    # Seat 0 won the pot, so seat 0 leads the Michigan stage (T17, T19): clubs or spades.
    assert t.player == 0 and t.legal() == {"lead ♣", "lead ♠"}


def test_t15_folded_player_is_skipped():
    t = deck_m(**FAST)
    t.play("bet 1", "fold", "raise 1")
    assert t.player == 0  # seat 1 folded: skipped
    assert t.play("call") == [-1, 0, 3 + 4]  # showdown of seats 0 and 2: royal flush


def test_t15_all_check_means_showdown():
    t = deck_m(**FAST)
    t.play("check", "check")
    assert t.play("check") == [0, 0, 3]


# ----- T16 showdown ----------------------------------------------------------------------------------------------
SHOW = {"spare_hand": "none"}


def showdown(hand0: str, hand1: str) -> list[int]:
    """2 players, dealer 1: seat 0 (18 cards) and seat 1 (17) select these five cards and check: the step's rewards."""
    t = Table(2, {0: hand0, 1: hand1}, dealer=1, **SHOW)
    t.select(hand0)
    t.select(hand1)
    t.play("check")
    return t.play("check")


def test_t16_worked_check_three_sevens_beat_two_pair():
    assert showdown("7c 7d 7h 2s 3s", "8c 8d 4h 4s 2d") == [2, 0]


def test_t16_worked_check_wheel_loses_to_six_high_straight():
    assert showdown("Ac 2d 3h 4s 5c", "2c 3d 4h 5s 6d") == [0, 2]


def test_t16_worked_check_royal_flush_is_best():
    assert showdown("As Ks Qs Js Ts", "9h Th Jh Qh Kh") == [2, 0]
    assert showdown("9c 9d 9h 9s 2c", "Ah Kh Qh Jh Th") == [0, 2]


def test_t16_kickers_decide_and_suits_never_rank():
    assert showdown("Kc Kd 9h 5s 3c", "Kh Ks 9c 5d 2c") == [2, 0]  # pair of kings, last kicker 3 beats 2
    assert showdown("Ac Kd 9h 5s 3c", "Ad Kc 9s 5h 3d") == [1, 1]  # equal hands split the pot of 2


def test_t16_split_pot_remainder_stays_on_pot():
    t = deck_m(**FAST)
    t.play("bet 1", "call")
    # Seats 0 and 1 both show a queen-high straight flush: pot 3 + 2 = 5 → 2 each, 1 stays.
    assert t.play("fold") == [2, 2, 0]
    assert t.layout()[8] == 1


# ----- T17 poker winner after a split ----------------------------------------------------------------------------
def test_t17_split_winner_is_first_clockwise_from_left_of_dealer():
    t = deck_m(**FAST)  # dealer 2: the order is seat 0, 1, 2
    t.play("bet 1", "call", "fold")
    assert t.player == 0 and t.legal() == {"lead ♣", "lead ♠"}
    t = deck_m(dealer=0, **FAST)  # dealer 0: the order is seat 1, 2, 0
    assert t.player == 1
    t.play("bet 1", "fold")
    assert t.play("call") == [-1 + 2, 2, 0]
    assert t.player == 1 and t.legal() == {"lead ♠", "lead ♥", "lead ♦"}


def test_t17_three_way_split_and_t25_last_card_collects_its_space():
    """Three royal flushes split the pot 1 each; seat 0 (first after the dealer) leads. Its last card, A♥, still
    takes the A space before it goes out (T25, T23)."""
    t = Table(3, H_HANDS, H_SPARE, dealer=2, paycards="play", **FAST)
    assert t.init_rewards == [-9, -9, -9]  # T11: no pay cards on the deal
    t.play("check", "check")
    assert t.play("check") == [1, 1, 1]
    assert t.player == 0 and t.legal() == {"lead ♠", "lead ♥"}
    # 2♠ (3♠ is in the spare: stop), then hearts 3♥..A♥: 10, J, Q, K, K-Q, A and the 8-9-10 sequence (7 × 3),
    # going out with A♥: the kitty (3) and 13 + 13 cards.
    assert t.play("lead ♠") == [21 + 3 + 26, -13, -13]
    assert t.done and t.layout() == [0] * 9


# ----- T18 / T19 Michigan leader -------------------------------------------------------------------------------------
def test_t18_whole_hand_back_after_poker():
    t = deck_m(spare_hand="none", michigan_leader="left_of_dealer")
    t.select("6♠ 7♠ 2♣ 3♣ 4♣")
    t.select_lowest()
    t.select_lowest()
    t.play("check", "check", "check")
    # Seat 0 selected both its spades, yet leads spades again: the five poker cards are back in hand.
    assert t.player == 0 and t.legal() == {"lead ♣", "lead ♠"}


@pytest.mark.parametrize(("leader", "seat", "suits"), [
    ("poker_winner", 2, {"♥", "♦"}),
    ("dealer", 0, {"♣", "♠"}),
    ("left_of_dealer", 1, {"♠", "♥", "♦"}),
])
def test_t19_michigan_leader(leader, seat, suits):
    t = deck_m(dealer=0, michigan_leader=leader, **FAST)
    assert t.player == 1  # opener left of dealer 0
    t.play("check", "check")
    assert t.play("check") == [0, 0, 3]  # seat 2's royal flush
    assert t.player == seat and t.legal() == {f"lead {s}" for s in suits}


# ----- T20–T23 Michigan ----------------------------------------------------------------------------------------------
def michigan(**options) -> Table:
    """Deck M, no spare phase, best five, the three check; seat 2 takes the pot (3): seat 0 leads the Michigan."""
    t = deck_m(michigan_leader="left_of_dealer", **FAST, **options)
    t.play("check", "check")
    return t


def test_t21_worked_check_run_stops_at_card_in_spare():
    """Worked check: 6♠ 7♠ (seat 0) 8♠ (seat 1), 9♠ in the spare: 8♠ is the stop, seat 1 leads, not spades."""
    t = michigan()
    assert t.play("check") == [0, 0, 3]
    assert t.player == 0 and t.legal() == {"lead ♣", "lead ♠"}
    assert t.play("lead ♠") == [0, 0, 0]
    assert t.player == 1 and t.legal() == {"lead ♥", "lead ♦"}


def test_c8_t21_forced_run_cards_asked_with_auto_forced_off():
    t = michigan(auto_forced=False)
    t.play("check", "lead ♠")
    assert t.player == 0 and t.legal() == {"continue run"}  # 7♠
    t.play("continue run")
    assert t.player == 1 and t.legal() == {"continue run"}  # 8♠
    t.play("continue run")
    assert t.player == 1 and t.legal() == {"lead ♥", "lead ♦"}


def test_t22_t23_stop_player_leads_and_goes_out():
    t = michigan()
    t.play("check", "lead ♠")
    # 2♥ (seat 1), 3♥..A♥ (seat 2): the ace stops; seat 2 leads K♦ (its only other suit), A♦ is in the spare,
    # and K♦ was its last card: seat 2 goes out, takes the kitty (3) and 11 + 11 chips for the cards left.
    assert t.play("lead ♥") == [-11, -11, 3 + 22]
    assert t.done and t.layout() == [0] * 9
    assert t.balances == [-8 - 11, -8 - 11, 10 + 3 + 25]


def test_t22_t23_other_order():
    t = michigan()
    t.play("check", "lead ♠")
    # 2♦..Q♦ (seat 1), K♦ (seat 2), A♦ spare: seat 2 leads hearts 3♥..A♥ and goes out; seat 1 keeps 2♥.
    assert t.play("lead ♦") == [-11, -1, 3 + 12]
    assert t.done


def test_t23_going_out_in_the_middle_of_a_run_and_t20_first_lead_lowest():
    """first_lead='lowest': seat 0 must lead 2♣ (forced); 2♣..Q♣, K♣ in the spare; then spades 6♠ 7♠ and seat 0
    is out before 8♠ (seat 1) is played: kitty 3, 13 + 13 cards."""
    t = michigan(first_lead="lowest")
    assert t.play("check") == [3 + 26, -13, 3 - 13]
    assert t.done


def test_t22_lead_passes_clockwise():
    """Seat 0 leads 2♦ 3♦ (4♦ spare), then must lead clubs 3♣..9♣ (10♣ spare) and holds only clubs: the lead
    passes clockwise to seat 1 (not seat 2), who runs all its hearts and goes out: kitty 3, 4 + 13 cards."""
    t = Table(3, P_HANDS, P_SPARE, dealer=2, michigan_leader="left_of_dealer", **FAST)
    assert t.init_rewards == [-9, -9 + 18 + 1, -8]  # hearts and the 8♥9♥10♥ / 8♠9♠10♠ sequences
    t.play("check", "check")
    assert t.play("check") == [0, 1, 1]  # two royal flushes split 3: 1 stays
    assert t.legal() == {"lead ♣", "lead ♦"}
    assert t.play("lead ♦") == [-4, 3 + 4 + 13, -13]
    assert t.done


def kitty_table(**options) -> Table:
    """2 players, dealer 0: seat 1 (18 cards) leads. Pay cards: seat 1 takes 10♥, K♥ and the 8♥9♥10♥ sequence
    (2 chips each); A♥ Q♥ J♥ are in the spare, nobody holds K♥ and Q♥."""
    return Table(2, K_HANDS, K_SPARE, dealer=0, michigan_leader="left_of_dealer", **options)


def test_t22_nobody_can_lead_everybody_pays_the_kitty():
    t = kitty_table(**FAST)
    assert t.init_rewards == [-9, -3]
    assert t.layout() == [2, 0, 2, 2, 0, 2, 0, 2, 2]
    t.play("check")
    assert t.play("check") == [2, 0]  # seat 0's 2♥-6♥ straight flush
    assert t.player == 1 and t.legal() == {"lead ♣", "lead ♦", "lead ♥"}
    # Clubs alternate 2♣..A♣, seat 1 plays the ace: it leads again, not clubs.
    assert t.play("lead ♣") == [0, 0]
    assert t.player == 1 and t.legal() == {"lead ♦", "lead ♥"}
    # Diamonds 2♦..A♦ (seat 1 the ace), then hearts forced: 8♥ 9♥ 10♥ (J♥ spare). Seat 1 holds only K♥, seat 0
    # only 2♥-6♥: nobody can lead another suit. Each pays a chip per card into the kitty.
    assert t.play("lead ♦") == [-5, -1]
    assert t.done and t.layout() == [2, 0, 2, 2, 0, 2, 0, 2 + 6, 0]


def test_t20_first_lead_lowest_choice_between_equal_ranks():
    t = kitty_table(first_lead="lowest", **FAST)
    t.play("check", "check")
    assert t.player == 1 and t.legal() == {"lead ♣", "lead ♦"}  # 2♣ and 2♦; hearts start at 8♥
    t.play("lead ♣")
    assert t.legal() == {"lead ♦", "lead ♥"}  # later leads are free again


def test_c2_t20_lead_colours_alternate():
    t = michigan(lead_colours="alternate")
    # First lead: lowest black card 2♣ (forced), 2♣..Q♣. Next lead red: seat 0 has none, the lead passes to seat
    # 1, whose lowest red cards are 2♦ and 2♥.
    assert t.play("check") == [0, 0, 3]
    assert t.player == 1 and t.legal() == {"lead ♦", "lead ♥"}
    # 2♥ 3♥..A♥ (seat 2); next lead black: seat 2 holds only K♦, so seat 0 leads 6♠ 7♠ and goes out:
    # kitty 3, seat 1 has 12 cards left, seat 2 one.
    assert t.play("lead ♥") == [3 + 13, -12, -1]
    assert t.done


def test_t20_t22_lead_colours_alternate_nobody_holds_the_colour():
    """Deck K: seat 1 must lead 2♣ (lowest black), clubs run to A♣ (seat 1); red next: 2♦ is seat 1's lowest red
    card, so diamonds (not hearts) run to A♦ (seat 1); black next: nobody has a black card left: the deal ends and
    seat 1 pays 4 (8♥ 9♥ 10♥ K♥), seat 0 pays 5 (2♥–6♥) into the kitty."""
    t = kitty_table(lead_colours="alternate", **FAST)
    t.play("check")
    assert t.play("check") == [2 - 5, -4]
    assert t.done and t.layout()[7] == 2 + 9


def test_t20_lead_colours_alternate_other_branch():
    t = michigan(lead_colours="alternate")
    t.play("check")
    # 2♦..Q♦ (seat 1), K♦ (seat 2), A♦ spare; black next: seat 2 has only hearts, seat 0 leads 6♠ 7♠ and goes
    # out before 8♠: seat 1 keeps 8♠ 2♥, seat 2 twelve hearts.
    assert t.play("lead ♦") == [3 + 14, -2, -12]


def test_t20_t21_lead_plays_lowest_card_of_suit():
    t = michigan()
    t.play("check", "lead ♠")
    # Seat 0 led its lowest spade 6♠ (not 7♠); the run 6♠ 7♠ 8♠ is all that was played.
    assert int(t.state.played[0]) == sum(1 << c for c in cards("6s 7s 8s"))


# ----- T24 played cards public ---------------------------------------------------------------------------------------
def test_t24_played_cards_public():
    t = michigan()
    t.play("check")
    before = t.game.render_table(t.state, 0, None)
    assert "8♠" not in before and "7♠" not in before
    obs_before = t.game.observe(t.state, 2)
    t.play("lead ♠")
    after = t.game.render_table(t.state, 0, None)
    assert "6♠" in after and "7♠" in after and "8♠" in after
    assert (t.game.observe(t.state, 2) != obs_before).any()


# ----- T25 paying during play -------------------------------------------------------------------------------------
def test_t25_pay_cards_paid_when_played():
    t = michigan(paycards="play")
    assert t.init_rewards == [-9, -9, -9]
    assert t.play("check") == [0, 0, 3]
    t.play("lead ♠")
    # Seat 2 plays 3♥..A♥: 10, J, Q, then Q♥ K♥ in a row (K and K-Q), A, and 8♥9♥10♥ (the sequence): 7 × 3;
    # then K♦ and out: kitty 3 and 11 + 11 cards.
    assert t.play("lead ♥") == [-11, -11, 21 + 3 + 22]
    assert t.layout() == [0] * 9


def test_t25_sequence_by_another_player_and_empty_space():
    t = michigan(paycards="play")
    t.play("check", "lead ♠")
    # Seat 1 plays 2♦..Q♦: 8♦9♦10♦ takes the sequence space (3). Seat 2 then 3♥..A♥: five pay spaces and K-Q
    # (18); its 8♥9♥10♥ finds the sequence space empty. Out: kitty 3, 11 (seat 0) + 1 (seat 1).
    assert t.play("lead ♦") == [-11, 3 - 1, 18 + 3 + 12]


def test_t25_king_before_queen_does_not_take_king_queen():
    hands = dict(M_HANDS)
    hands[1] = "8s Kh 2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd"
    hands[2] = "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Ah Kd"
    t = Table(3, hands, M_SPARE, dealer=2, michigan_leader="left_of_dealer", paycards="play", **FAST)
    t.play("check", "check", "check", "lead ♠")
    assert t.legal() == {"lead ♥", "lead ♦"}
    # Seat 1 leads K♥ (K space 3), seat 2 A♥ (A space 3, the stop), K♦, A♦ spare, then 2♥..Q♥: 10, J, Q (9) and
    # the sequence (3), out at Q♥: kitty 3, 11 + 11 cards. K-Q stays.
    assert t.play("lead ♥") == [-11, 3 - 11, 3 + 9 + 3 + 3 + 22]
    assert t.layout() == [0, 0, 0, 0, 0, 3, 0, 0, 0]


# ----- what the observations show (C12, T16, T24; block offsets as documented in envs/tripoli_v1.py) ------------------
def seat_rows(t: Table, viewer: int, block: str) -> list[int]:
    """A 9 × 52 observation block of ``viewer`` as card masks by absolute seat (row j is seat viewer + j)."""
    lo, hi = OFFSETS[block]
    rows = t.game.observe(t.state, viewer)[0, lo:hi].reshape(9, 52)
    masks = [sum(1 << c for c in range(52) if rows[j, c]) for j in range(9)]
    return [masks[(s - viewer) % t.n] for s in range(t.n)]


def card_block(t: Table, viewer: int, block: str) -> int:
    lo, hi = OFFSETS[block]
    bits = t.game.observe(t.state, viewer)[0, lo:hi]
    return sum(1 << c for c in range(52) if bits[c])


def mask(text: str) -> int:
    return sum(1 << c for c in cards(text))


def test_t16_shown_hands_public_folded_hand_never_shown():
    t = deck_m(**FAST)
    for v in range(3):
        assert seat_rows(t, v, "shown") == [0, 0, 0]
    t.play("bet 1", "call", "fold")
    for v in range(3):  # every seat sees both straight flushes; seat 2's folded royal flush stays hidden
        assert seat_rows(t, v, "shown") == [mask("8c 9c Tc Jc Qc"), mask("8d 9d Td Jd Qd"), 0]


def test_t15_pot_taken_without_showing():
    t = deck_m(**FAST)
    t.play("bet 1", "fold", "fold")
    for v in range(3):
        assert seat_rows(t, v, "shown") == [0, 0, 0]


def test_t24_played_cards_seen_by_every_seat():
    t = michigan()
    t.play("check", "lead ♠")
    for v in range(3):
        assert card_block(t, v, "played") == mask("6s 7s 8s")
        assert seat_rows(t, v, "played_by") == [mask("6s 7s"), mask("8s"), 0]


def test_c8_t20_single_legal_lead_asked_with_auto_forced_off():
    """As test_t23_going_out_in_the_middle_of_a_run…: the same events, asked one by one, same chips in total."""
    t = michigan(first_lead="lowest", auto_forced=False)
    assert t.play("check") == [0, 0, 3]
    assert t.player == 0 and t.legal() == {"lead ♣"}
    t.play("lead ♣")
    for _ in range(10):  # 3♣ … Q♣
        assert t.player == 0 and t.legal() == {"continue run"}
        assert t.play("continue run") == [0, 0, 0]
    assert t.legal() == {"lead ♠"}
    t.play("lead ♠")
    assert t.legal() == {"continue run"}
    assert t.play("continue run") == [3 + 26, -13, -13]
    assert t.done
