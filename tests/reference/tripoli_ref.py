"""A plain, slow, one-table reference implementation of Tripoli, written straight from the rules.

It follows docs/common.md, docs/tripoli.md and the engine decisions both implementations share
(first dealer and shuffles from :mod:`envs.core.rng`, the order of decisions, the space indices). It uses Python
lists, sets and ints, one method per rule, and shares no rule code with the batched core
(:mod:`envs.tripoli.core`): the parity test (tests/test_tripoli_parity.py) plays both side by side, so a mistake in
either shows up as a mismatch. Only the action ids (:mod:`envs.tripoli.actions`), the option dataclass
(:mod:`envs.tripoli.config`), the randomness (:mod:`envs.core.rng`) and the poker hand evaluator
(:mod:`envs.core.poker`, tested on its own against brute force) are imported.

The game is a small state machine: ``phase`` names the decision the table waits on and ``current_player`` who
takes it. Each ``_act_*`` method applies one decision and then runs everything the rules do on their own until the
next decision (ante, dealing, pays, showdown, passing the lead, the next deal …). With ``auto_forced`` (C8) a
decision with exactly one legal action is then taken by the engine, repeatedly, inside the same step.

Readings taken where the rules and engine decisions leave room (the core follows the same ones):

- With ``lead_colours='alternate'`` the colour rule replaces ``first_lead``: the first lead is the leader's lowest
  black card whatever ``first_lead`` says (T20 makes the Cosmo first lead "the leader's lowest black card").
- Betting: a player's ``call`` brings their total up to the highest total of the round; the round ends when all
  players still in have acted since the last bet or raise and their totals are equal (T15).
"""

from __future__ import annotations

import numpy as np

from envs.core.poker import best_five, mask_rank
from envs.core.rng import STREAM_BOARD, STREAM_DEALER, shuffled_decks, uniform_ints
from envs.tripoli.actions import AUCTION, KEEP, PASS, SWAP, TripoliActions
from envs.tripoli.config import TripoliConfig

# Layout spaces (T2), in the engine's order: A, K, Q, J, 10 of the pay suit, K-Q, sequence, kitty, pot.
ACE_SPACE, KING_SPACE, QUEEN_SPACE, JACK_SPACE, TEN_SPACE, KING_QUEEN_SPACE, SEQUENCE_SPACE, KITTY, POT = range(9)
NUM_SPACES = 9
# Ranks (C1): 2 is 0 … 10 is 8, J 9, Q 10, K 11, A 12.
TEN, JACK, QUEEN, KING, ACE = 8, 9, 10, 11, 12
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
BLACK_SUITS = (CLUBS, SPADES)  # C2
RED_SUITS = (DIAMONDS, HEARTS)


def suit(card: int) -> int:
    """C1: suit of a card id."""
    return card // 13


def rank(card: int) -> int:
    """C1: rank of a card id (0 = two … 12 = ace)."""
    return card % 13


def pay_space(card_rank: int) -> int:
    """Layout space of a pay card of rank 10 … A (T2): A → 0, K → 1, Q → 2, J → 3, 10 → 4."""
    return ACE - card_rank


def colour_suits(s: int) -> tuple[int, int]:
    """C2: the two suits of the colour of suit ``s``."""
    return BLACK_SUITS if s in BLACK_SUITS else RED_SUITS


def card_mask(cards: set[int] | list[int]) -> int:
    """52-bit mask of a set of card ids (for the poker evaluator)."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class TripoliReference:
    """One table of Tripoli. See the module docstring; the attributes below are public for tests.

    ``balances`` (n chips, T3), ``layout`` (9 spaces, T2), ``hands`` (a set of card ids per seat), ``spare`` and
    ``dead`` (cards out of play, T9), ``played`` (T24), ``dealer``, ``deal_number``, ``pay_suit``, ``phase``,
    ``current_player`` (-1 when over), ``terminated``, ``init_rewards`` (the chips moved by the dealing).
    """

    def __init__(
        self,
        num_players: int,
        config: TripoliConfig,
        seed: int,
        deck: list[int] | None = None,
        dealer: int | None = None,
    ) -> None:
        if not 2 <= num_players <= 9:  # T1
            raise ValueError(f"Tripoli is for 2 to 9 players, not {num_players}")
        self.n = num_players
        self.config = config
        self.seed = int(seed)
        # one stacked deck (the first deal's) or a list of them (the first deals'); later deals from the seed
        decks = [] if deck is None else [deck] if np.ndim(deck) == 1 else list(deck)
        self.stacked_decks = [[int(c) for c in d] for d in decks]
        self.actions = TripoliActions(config.max_bid, config.bet_limit)
        self.balances = [0] * self.n  # T3
        self.layout = [0] * NUM_SPACES  # T2
        self.terminated = False
        self.phase = ""
        self.current_player = -1
        self.deal_number = 0
        self.in_final_rounds = False
        self.final_pots: list[int] = []  # T28: pots still to play, largest first
        self.final_pot = 0
        self.dealer = self._draw_first_dealer() if dealer is None else int(dealer)  # C5
        self.forced: list[tuple[int, int, int]] = []  # C8: (seat, action, card or -1) of the last step's forced moves
        self._start_deal()
        self._play_forced_moves()
        self.init_rewards = [float(b) for b in self.balances]  # balances started at 0

    # ================================================================ randomness (C7, engine decisions) ==========
    def _draw_first_dealer(self) -> int:
        """C5: the first dealer is drawn from the table's generator."""
        return int(uniform_ints(np.array([self.seed], dtype=np.uint64), STREAM_DEALER, 0, self.n)[0])

    def _draw_board(self) -> tuple[int, int]:
        """T30 Cosmo: the pay suit (any of the four) and the sequence start (face value 2 to 12) of this deal."""
        seeds = np.array([self.seed], dtype=np.uint64)
        suit_drawn = int(uniform_ints(seeds, STREAM_BOARD, 2 * self.deal_number, 4)[0])
        start = 2 + int(uniform_ints(seeds, STREAM_BOARD, 2 * self.deal_number + 1, 11)[0])
        return suit_drawn, start

    def _deck(self, deal_number: int) -> list[int]:
        """The cards of deal ``deal_number`` in dealing order: its stacked deck if one was given."""
        if deal_number < len(self.stacked_decks):
            return list(self.stacked_decks[deal_number])
        return [int(c) for c in shuffled_decks(np.array([self.seed], dtype=np.uint64), deal_number, 52)[0]]

    # ================================================================ helpers ====================================
    def _seat(self, offset: int) -> int:
        """C4: the seat ``offset`` places to the left of the dealer."""
        return (self.dealer + offset) % self.n

    def _ask(self, phase: str, player: int) -> None:
        """The table now waits on ``player`` for a decision of kind ``phase``."""
        self.phase = phase
        self.current_player = player

    def _pay_player(self, payer: int, receiver: int, chips: int) -> None:
        """C10: chips from one player's balance to another's."""
        self.balances[payer] -= chips
        self.balances[receiver] += chips

    def _put_on_space(self, seat: int, space: int, chips: int) -> None:
        """C10: chips from a player's balance onto a layout space."""
        self.balances[seat] -= chips
        self.layout[space] += chips

    def _take_from_space(self, seat: int, space: int, chips: int) -> None:
        """C10: chips from a layout space to a player's balance."""
        self.layout[space] -= chips
        self.balances[seat] += chips

    def _take_space(self, seat: int, space: int) -> None:
        """A seat takes every chip on a space."""
        self._take_from_space(seat, space, self.layout[space])

    def holder(self, card: int) -> int | None:
        """The seat whose hand holds ``card`` (None: the spare, a dead hand, or already played)."""
        for p in range(self.n):
            if card in self.hands[p]:
                return p
        return None

    # ================================================================ public interface ===========================
    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the current player (empty when the episode is over)."""
        if self.terminated:
            return []
        return sorted(getattr(self, f"_legal_{self.phase}")())

    def step(self, action: int) -> list[float]:
        """Play one decision of the current player, then everything the engine resolves by itself.
        Returns each seat's reward of this step (balance change, T29/C11). ValueError on an illegal action (C9)."""
        if self.terminated:
            raise ValueError("the episode is over")
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(
                f"action {action} is not legal for seat {self.current_player} in phase {self.phase}; legal: {legal}"
            )
        before = list(self.balances)
        self.forced = []
        self._apply(action)
        self._play_forced_moves()
        return [float(after - b) for after, b in zip(self.balances, before, strict=True)]

    def _apply(self, action: int) -> None:
        getattr(self, f"_act_{self.phase}")(action)

    def _play_forced_moves(self) -> None:
        """C8: with auto_forced, a decision with exactly one legal action is taken by the engine."""
        if not self.config.auto_forced:
            return
        while not self.terminated:
            legal = self.legal_actions()
            if len(legal) != 1:
                return
            if self.config.cosmo and self.phase == "lead" and self.deal_number == 0 and not self.played:
                return  # T30: the episode's first lead is asked (no episode is over at reset)
            self.forced.append((self.current_player, legal[0], self._card_of(legal[0])))
            self._apply(legal[0])

    def _card_of(self, action: int) -> int:
        """The card a lead or a run move plays (named in the report of forced moves, C8); -1 for other moves."""
        if self.phase == "lead":
            return min(c for c in self.hands[self.current_player] if suit(c) == action - self.actions.lead)
        if self.phase == "run":
            return self.run[-1][1] + 1
        return -1

    # ================================================================ deal: T4, T5 ===============================
    def _start_deal(self) -> None:
        """One deal of the episode: ante, deal, then the spare-hand phase."""
        self._ante()
        self._deal_cards()
        if self.config.cosmo:  # T30: the board's windows change every deal
            self.pay_suit, self.sequence_start = self._draw_board()
        else:
            self.pay_suit, self.sequence_start = HEARTS, self.config.sequence_start
        self.played: set[int] = set()
        self.swapped = False
        self.auctioned = False
        if self.config.spare_hand == "none" or self.config.cosmo:  # T8, T30: no spare-hand phase
            self._after_spare_phase()
        else:
            self._ask("spare", self.dealer)

    def _ante(self) -> None:
        """T4: every player puts 1 chip on each of the nine spaces."""
        for p in range(self.n):
            for space in range(NUM_SPACES):
                self._put_on_space(p, space, 1)

    def _deal_cards(self) -> None:
        """T5: one card at a time to n + 1 hands, from the dealer's left round to the dealer, the spare last."""
        deck = self._deck(self.deal_number)
        hands: list[set[int]] = [set() for _ in range(self.n + 1)]
        for i, card in enumerate(deck):
            hands[i % (self.n + 1)].add(card)
        self.hands: list[set[int]] = [set() for _ in range(self.n)]
        for j in range(self.n):
            self.hands[self._seat(1 + j)] = hands[j]
        self.spare: set[int] = hands[self.n]
        self.dead: set[int] = set()
        self.dead_shown: set[int] = set()  # T7 dead_hand='shown': dead cards every player has seen

    # ================================================================ the spare hand: T6–T8 =====================
    def _legal_spare(self) -> list[int]:
        if self.config.spare_hand == "swap_only":  # T8
            return [KEEP, SWAP]
        if self.swapped:  # T6: after a swap, keep or auction the old hand
            return [KEEP, AUCTION]
        if self.auctioned:  # T6: after an auction without a bid, keep or swap
            return [KEEP, SWAP]
        return [KEEP, SWAP, AUCTION]

    def _act_spare(self, action: int) -> None:
        if action == KEEP:
            self._after_spare_phase()
        elif action == SWAP:
            self._swap_with_spare()
        else:
            self._start_auction("spare")

    def _swap_with_spare(self) -> None:
        """T6 swap: the dealer's hand and the spare change places unseen."""
        d = self.dealer
        self.hands[d], self.spare = self.spare, self.hands[d]
        self.swapped = True
        if self.config.spare_hand == "full" and not self.auctioned:
            self._ask("spare", d)  # T6: the dealer may now keep or auction the old hand
        else:
            self._after_spare_phase()

    # ================================================================ auctions: T7 (spare), T26 (pay suit) ======
    def _start_auction(self, kind: str) -> None:
        """T7: bidders left of the dealer clockwise, without the dealer; T26: every seat from the dealer."""
        first = 1 if kind == "spare" else 0
        self.auction_kind = kind
        self.bidders = [self._seat(k) for k in range(first, self.n)]
        self.passed: set[int] = set()
        self.high_bid = 0
        self.high_bidder: int | None = None
        self._ask("auction", self.bidders[0])

    def _legal_auction(self) -> list[int]:
        """T7: pass, or bid more than the high bid, at most max_bid."""
        bids = range(self.high_bid + 1, self.config.max_bid + 1)
        return [PASS] + [self.actions.bid + k - 1 for k in bids]

    def _act_auction(self, action: int) -> None:
        p = self.current_player
        if action == PASS:
            self.passed.add(p)  # out of this auction for good
        else:
            self.high_bid = action - self.actions.bid + 1
            self.high_bidder = p
        still_in = [b for b in self.bidders if b not in self.passed]
        if self.high_bidder is not None and still_in == [self.high_bidder]:
            self._end_auction(self.high_bidder)
        elif not still_in:
            self._end_auction(None)
        else:  # the next bidder clockwise who has not passed
            seat = p
            while True:
                seat = (seat + 1) % self.n
                if seat in still_in:
                    break
            self._ask("auction", seat)

    def _end_auction(self, winner: int | None) -> None:
        if self.auction_kind == "spare":
            self._end_spare_auction(winner)
        else:
            self._end_pay_suit_auction(winner)

    def _end_spare_auction(self, winner: int | None) -> None:
        """T7: the winner pays the dealer and takes the spare; their old hand is dead. No bid: T6."""
        self.auctioned = True
        if winner is None:
            if self.swapped:  # engine decision: after swap and a failed auction the phase is over
                self._after_spare_phase()
            else:
                self._ask("spare", self.dealer)  # keep or swap
            return
        self._pay_player(winner, self.dealer, self.high_bid)
        self.dead |= self.hands[winner]
        if self.config.dead_hand == "shown":  # T7: the old hand is discarded face up
            self.dead_shown |= self.hands[winner]
        self.hands[winner] = self.spare
        self.spare = set()
        self._after_spare_phase()

    def _after_spare_phase(self) -> None:
        if self.config.cosmo:  # T30: only the Michigan stage
            self._start_michigan()
        elif self.config.pay_suit == "auction":  # T26
            self._start_auction("pay_suit")
        else:
            self._after_pay_suit()

    def _end_pay_suit_auction(self, winner: int | None) -> None:
        """T26: the high bidder puts the bid on the kitty and names the pay suit; no bid: hearts stay."""
        if winner is None:
            self.pay_suit = HEARTS
            self._after_pay_suit()
            return
        self._put_on_space(winner, KITTY, self.high_bid)
        self._ask("name", winner)

    def _legal_name(self) -> list[int]:
        return [self.actions.name_suit + s for s in range(4)]

    def _act_name(self, action: int) -> None:
        self.pay_suit = action - self.actions.name_suit
        self._after_pay_suit()

    def _after_pay_suit(self) -> None:
        if not self.config.pays_in_play:  # T10 / T11
            self._pay_cards_on_deal()
        self._start_poker()

    # ================================================================ stage 1: T10 ===============================
    def _pay_cards_on_deal(self) -> None:
        """T10: the holders of the pay cards, of K-Q and of sequences take those spaces (only players' hands, T9)."""
        for card_rank in (ACE, KING, QUEEN, JACK, TEN):
            owner = self.holder(HEARTS * 13 + card_rank)
            if owner is not None:
                self._take_space(owner, pay_space(card_rank))
        king, queen = self.holder(HEARTS * 13 + KING), self.holder(HEARTS * 13 + QUEEN)
        if king is not None and king == queen:
            self._take_space(king, KING_QUEEN_SPACE)
        qualifiers = [p for p in range(self.n) if self._holds_sequence(self.hands[p])]
        if qualifiers:  # each takes floor(chips / q), the remainder stays (one share even with two sequences)
            share = self.layout[SEQUENCE_SPACE] // len(qualifiers)
            for p in qualifiers:
                self._take_from_space(p, SEQUENCE_SPACE, share)

    def _holds_sequence(self, hand: set[int]) -> bool:
        """T10/T27: the hand holds ranks sequence_start, +1, +2 of one suit."""
        low = self.sequence_start - 2  # face value 8 is rank id 6
        return any(all(s * 13 + low + k in hand for k in range(3)) for s in range(4))

    # ================================================================ stage 2: poker T12–T17 ====================
    def _opener(self) -> int:
        """T13: left of the dealer, or the dealer."""
        return self.dealer if self.config.poker_opener == "dealer" else self._seat(1)

    def _start_poker(self) -> None:
        self.selected: list[set[int]] = [set() for _ in range(self.n)]
        if self.config.poker_select == "best":  # T12: the engine picks each player's best five
            for p in range(self.n):
                five = int(best_five(np.array([card_mask(self.hands[p])], dtype=np.uint64))[0])
                self.selected[p] = {c for c in self.hands[p] if five >> c & 1}
            self._start_betting(final=False)
            return
        self.selection_order = [(self._opener() + k) % self.n for k in range(self.n)]
        self.selection_index = 0
        self._continue_selection()

    def _continue_selection(self) -> None:
        """T12: each player in turn from the opener selects five cards; when the unselected cards are exactly the
        number still to select, they are selected automatically (no decision)."""
        while self.selection_index < self.n:
            p = self.selection_order[self.selection_index]
            unselected = self.hands[p] - self.selected[p]
            if len(unselected) == 5 - len(self.selected[p]):
                self.selected[p] |= unselected
            if len(self.selected[p]) == 5:
                self.selection_index += 1
                continue
            self._ask("select", p)
            return
        self._start_betting(final=False)

    def _legal_select(self) -> list[int]:
        p = self.current_player
        return [self.actions.select + c for c in self.hands[p] - self.selected[p]]

    def _act_select(self, action: int) -> None:
        self.selected[self.current_player].add(action - self.actions.select)
        self._continue_selection()

    def _start_betting(self, final: bool) -> None:
        """T14: a betting round from the opener; ``final`` is the final poker round of T28."""
        self.final_round = final
        self.still_in = [True] * self.n
        self.round_bets = [0] * self.n
        self.acted: set[int] = set()
        self.bet_made = False
        self.raises = 0
        self._ask("bet", self._opener())

    def _legal_bet(self) -> list[int]:
        a, limit = self.actions, self.config.bet_limit
        if not self.bet_made:  # check or bet k
            return [a.check] + [a.bet + k for k in range(limit)]
        legal = [a.fold, a.call]
        if self.raises < self.config.max_raises:
            legal += [a.raise_ + k for k in range(limit)]
        return legal

    def _act_bet(self, action: int) -> None:
        a, p = self.actions, self.current_player
        highest = max(self.round_bets)
        if action == a.check:
            self.acted.add(p)
        elif action == a.fold:
            self.still_in[p] = False
            self.acted.discard(p)
        elif action == a.call:
            self._bet_chips(p, highest - self.round_bets[p])
            self.acted.add(p)
        elif a.bet <= action < a.raise_:  # the opening bet
            self._bet_chips(p, action - a.bet + 1)
            self.bet_made = True
            self.acted = {p}
        else:  # raise k: call, then add k
            self._bet_chips(p, highest - self.round_bets[p] + action - a.raise_ + 1)
            self.raises += 1
            self.acted = {p}
        self._after_bet_action(p)

    def _bet_chips(self, p: int, chips: int) -> None:
        """T14: chips bet go onto the pot space."""
        self.round_bets[p] += chips
        self._put_on_space(p, POT, chips)

    def _after_bet_action(self, p: int) -> None:
        """T15: one player left takes the pot; everybody in has acted and bet equally: showdown; else the next
        player clockwise who has not folded."""
        players_in = [q for q in range(self.n) if self.still_in[q]]
        if len(players_in) == 1:
            self._poker_won(players_in)
            return
        if all(q in self.acted for q in players_in) and len({self.round_bets[q] for q in players_in}) == 1:
            self._showdown(players_in)
            return
        seat = p
        while True:
            seat = (seat + 1) % self.n
            if self.still_in[seat]:
                break
        self._ask("bet", seat)

    def _showdown(self, players_in: list[int]) -> None:
        """T16: the best shown five cards win; equal best hands split."""
        values = mask_rank(np.array([card_mask(self.selected[q]) for q in players_in], dtype=np.uint64))
        best = int(values.max())
        winners = [q for q, v in zip(players_in, values, strict=True) if int(v) == best]
        self._poker_won(winners)

    def _poker_won(self, winners: list[int]) -> None:
        self.poker_winners = winners
        if self.final_round:
            self._final_round_paid(winners)
            return
        share = self.layout[POT] // len(winners)  # T16: the remainder stays on the pot space
        for w in winners:
            self._take_from_space(w, POT, share)
        # T17: the sole winner, or the first winner clockwise starting left of the dealer
        self.poker_winner = min(winners, key=lambda w: (w - self.dealer - 1) % self.n)
        self._start_michigan()

    # ================================================================ stage 3: Michigan T18–T25 ==================
    def _start_michigan(self) -> None:
        """T18: everybody holds the whole hand again; T19: the first leader."""
        self.first_lead = True
        self.last_run_suit: int | None = None
        self.run: list[tuple[int, int]] = []  # (seat, card) of the current run
        if self.config.cosmo:  # T30: there is no poker winner; the player left of the dealer leads
            leader = self._seat(1)
        else:
            leader = {
                "poker_winner": self.poker_winner,
                "dealer": self.dealer,
                "left_of_dealer": self._seat(1),
            }[self.config.michigan_leader]
        self._offer_lead(leader)

    def lead_suits(self, p: int) -> list[int]:
        """T20/T22: the suits seat ``p`` may lead now."""
        hand = self.hands[p]
        held = sorted({suit(c) for c in hand})
        if self.config.lead_colours == "alternate" or self.config.cosmo:  # T20, T30
            if self.first_lead:
                allowed = BLACK_SUITS  # the leader's lowest black card
            else:  # the colour opposite to the run just ended
                allowed = RED_SUITS if self.last_run_suit in BLACK_SUITS else BLACK_SUITS
            return self._lowest_suits(hand, [s for s in held if s in allowed])
        if self.first_lead:
            if self.config.first_lead == "lowest":
                return self._lowest_suits(hand, held)
            return held
        return [s for s in held if s != self.last_run_suit]

    @staticmethod
    def _lowest_suits(hand: set[int], suits: list[int]) -> list[int]:
        """The suits among ``suits`` whose lowest card in ``hand`` has the lowest rank of all those cards."""
        if not suits:
            return []
        low = min(rank(c) for c in hand if suit(c) in suits)
        return [s for s in suits if min(rank(c) for c in hand if suit(c) == s) == low]

    def _offer_lead(self, leader: int) -> None:
        """T22: the leader leads; without a legal lead it passes clockwise; if nobody can lead the deal ends."""
        for k in range(self.n):
            p = (leader + k) % self.n
            if self.lead_suits(p):
                self._ask("lead", p)
                return
        for p in range(self.n):  # T22: 1 chip into the kitty per card left in hand
            self._put_on_space(p, KITTY, len(self.hands[p]))
        self._end_deal()

    def _legal_lead(self) -> list[int]:
        return [self.actions.lead + s for s in self.lead_suits(self.current_player)]

    def _act_lead(self, action: int) -> None:
        """T20: play the lowest card held of the chosen suit; a new run starts."""
        p, s = self.current_player, action - self.actions.lead
        card = min(c for c in self.hands[p] if suit(c) == s)
        self.first_lead = False
        self.run = []
        self._play_card(p, card)

    def _legal_run(self) -> list[int]:
        return [self.actions.continue_run]

    def _act_run(self, action: int) -> None:
        """T21: the holder of the next card of the run plays it."""
        last = self.run[-1][1]
        self._play_card(self.current_player, last + 1)

    def _play_card(self, p: int, card: int) -> None:
        self.hands[p].remove(card)
        self.played.add(card)  # T24: face up, public
        self.run.append((p, card))
        if self.config.pays_in_play:  # T25 (before going out)
            self._pay_in_play(p, card)
        if not self.hands[p]:  # T23
            self._go_out(p)
            return
        nxt = self.holder(card + 1) if rank(card) < ACE else None
        if nxt is not None:  # T21: the next card of the run must be played by its holder
            self._ask("run", nxt)
        else:  # T21/T22: ``card`` is the stop; its player leads next
            self.last_run_suit = suit(card)
            self._offer_lead(p)

    def _pay_in_play(self, p: int, card: int) -> None:
        """T25: the pay cards, K-Q in a row, and the sequence as three consecutive cards of a run by one player."""
        if suit(card) == self.pay_suit and rank(card) >= TEN:
            self._take_space(p, pay_space(rank(card)))
        queen = self.pay_suit * 13 + QUEEN
        if card == queen + 1 and len(self.run) >= 2 and self.run[-2] == (p, queen):
            self._take_space(p, KING_QUEEN_SPACE)
        low = self.sequence_start - 2
        if rank(card) == low + 2 and len(self.run) >= 3 and self.run[-3:] == [(p, card - 2), (p, card - 1), (p, card)]:
            self._take_space(p, SEQUENCE_SPACE)

    def _go_out(self, p: int) -> None:
        """T23: the player who went out takes the kitty and 1 chip per card left in every other hand; T30 Cosmo:
        the pot space too."""
        self._take_space(p, KITTY)
        if self.config.cosmo:
            self._take_space(p, POT)
        for q in range(self.n):
            if q != p:
                self._pay_player(q, p, len(self.hands[q]))
        self._end_deal()

    # ================================================================ episodes: T28 ==============================
    def _end_deal(self) -> None:
        """After a deal: the next deal; after the last, the settlement of the layout (T28); after a final round,
        the next final round or the end."""
        cfg = self.config
        if self.in_final_rounds:
            self._next_final_round()
        elif self.deal_number + 1 < cfg.num_deals:  # the dealer moves left, the next deal starts
            self.deal_number += 1
            self.dealer = (self.dealer + 1) % self.n
            self._start_deal()
        elif cfg.num_deals == 1 or cfg.final_round == "none":
            self._terminate()
        elif cfg.final_round == "share":  # T28: equal shares, the remainder stays on the layout
            total = sum(self.layout)
            self.layout = [0] * NUM_SPACES
            self.layout[POT] = total % self.n
            for p in range(self.n):
                self.balances[p] += total // self.n
            self._terminate()
        else:  # T28 poker / pots: the layout gathered on the pot space, divided into pots, the larger first
            total = sum(self.layout)
            self.layout = [0] * NUM_SPACES
            self.layout[POT] = total
            k = cfg.final_pots if cfg.final_round == "pots" else 1
            pots = [total // k + (1 if i < total % k else 0) for i in range(k)]
            self.final_pots = [pot for pot in pots if pot > 0]  # a pot with no chip is not played
            self.in_final_rounds = True
            self._next_final_round()

    def _next_final_round(self) -> None:
        if not self.final_pots:
            self._terminate()
            return
        self.final_pot = self.final_pots.pop(0)
        self.deal_number += 1
        self.dealer = (self.dealer + 1) % self.n
        self._start_final_round()

    def _start_final_round(self) -> None:
        """T28: no ante, a fresh deck, five cards each from the dealer's left, no spare, no selection."""
        deck = self._deck(self.deal_number)
        self.hands = [set() for _ in range(self.n)]
        for i in range(5 * self.n):
            self.hands[self._seat(1 + i % self.n)].add(deck[i])
        self.spare, self.dead, self.dead_shown, self.played = set(), set(), set(), set()
        self.selected = [set(h) for h in self.hands]
        self._start_betting(final=True)

    def _final_round_paid(self, winners: list[int]) -> None:
        """T28: the winner takes the round's pot and its bets; tied winners share, the remainder one chip at a
        time clockwise from the dealer's left."""
        total = self.final_pot + sum(self.round_bets)
        self.layout[POT] -= total
        order = sorted(winners, key=lambda w: (w - self.dealer - 1) % self.n)
        share, rest = divmod(total, len(order))
        for k, w in enumerate(order):
            self.balances[w] += share + (1 if k < rest else 0)
        self.final_pot = 0
        self._end_deal()

    def _terminate(self) -> None:
        self.terminated = True
        self.phase = "over"
        self.current_player = -1
