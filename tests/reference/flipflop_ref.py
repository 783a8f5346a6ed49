"""A slow, plain reference of Flip Flop written straight from docs/flipflop.md (one table, lists and sets).

It shares no rule code with the batched core: only the card printing of ``envs.core.cards`` and the seeded
randomness of ``envs.core.rng`` (so that the same seed deals the same cards, C7). Legal actions are produced as the
action *names* of the public action table, so a parity test compares the two engines through the names.

It follows the decisions documented in ``envs/flipflop/core.py`` (where the rules are silent).
"""

from __future__ import annotations

import copy
import itertools

from envs.core.cards import card_str
from envs.core.rng import STREAM_DEALER, shuffled_decks, uniform_ints

RANK_WORD = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T", 11: "J", 12: "Q", 13: "K"}


class Card:
    """A card with its suit (0–3, ♣♦♥♠) and its rank for runs (F2: ace 1 … king 13)."""

    def __init__(self, card_id: int) -> None:
        self.id = card_id
        self.suit = card_id // 13
        r = card_id % 13
        self.rank = 1 if r == 12 else r + 2

    @property
    def points(self) -> int:
        """F2: K, Q, J 10; ace 1; others face value."""
        return min(self.rank, 10)

    def __repr__(self) -> str:
        return card_str(self.id, unicode=True)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.id == self.id

    def __hash__(self) -> int:
        return self.id


def card_at(suit: int, rank: int) -> Card:
    """The card of ``suit`` with run rank ``rank`` (1 = ace … 13 = king)."""
    return Card(suit * 13 + (12 if rank == 1 else rank - 2))


def deal_order(n: int, dealer: int, playing: list[int]) -> list[int]:
    """F5: the seats dealt to, from the dealer's left round to the dealer, among ``playing`` seats."""
    return [s for s in ((dealer + k) % n for k in range(1, n + 1)) if s in playing]


def stack_deck(n: int, dealer: int, hands: dict[int, list[int]], stock: list[int] = (), playing=None) -> list[int]:
    """A deck in dealing order giving seat ``s`` the five card ids ``hands[s]`` (F5: the dealer's fifth card is
    the flip card), then ``stock`` on top of the stock, then every other card in id order."""
    seats = deal_order(n, dealer, list(range(n)) if playing is None else playing)
    deck = [hands[s][k] for k in range(5) for s in seats]
    rest = [c for c in range(52) if c not in deck and c not in stock]
    deck += list(stock) + rest
    assert sorted(deck) == list(range(52)), "a stacked deck must use each card once"
    return deck


class FlipFlopRef:
    """One table of Flip Flop. ``step(name)`` plays a legal action by name; ``rewards`` is the last step's rewards.
    ``terminated`` (the rules ended the episode) and ``truncated`` (F28 cut it off) make ``done``."""

    def __init__(self, n: int, seed: int, num_deals: int = 1, until_one_left: bool = False, bankroll: int = 20,
                 deck: list[int] | None = None, dealer: int | None = None, auto_forced: bool = True,
                 max_turns: int = 200, max_deals: int = 1000, declare_49_50: str = "deal",
                 stake: float = 1.0) -> None:
        self._legal = None
        self.declare = declare_49_50  # F7: "deal" or "first_turn"
        self.stake = stake  # F26: rewards are stake changes times this
        self.forced_moves: list[tuple[int, str]] = []  # C8: (seat, action name) of the last step's forced moves
        self.auto_forced = auto_forced
        self.max_turns = max_turns
        self.max_deals = max_deals
        self.n = n
        self.seed = seed
        self.session = until_one_left or num_deals > 1
        self.num_deals = num_deals
        self.until_one_left = until_one_left
        self.money = [float(bankroll) if self.session else 0.0] * n
        self.start = list(self.money)
        self.pots = {"game": 0.0, "flip": 0.0, "flop": 0.0}
        self.out = [False] * n
        self.deals_done = 0
        self.terminated = False
        self.truncated = False
        self.dealer = int(uniform_ints([seed], STREAM_DEALER, 0, n)[0]) if dealer is None else dealer
        # one stacked deck (the first deal's) or a list of them (the first deals'); later deals from the seed
        several = deck is not None and isinstance(deck[0], (list, tuple))
        self.decks = [] if deck is None else [list(d) for d in deck] if several else [list(deck)]
        self.start_deal()
        self.play_forced()
        self.rewards = [(self.money[s] - self.start[s]) * stake for s in range(n)]

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    # ----- the deal ---------------------------------------------------------------------------------------------
    def start_deal(self) -> None:
        n = self.n
        deck = self.decks[self.deals_done] if self.deals_done < len(self.decks) else None
        if deck is None:
            deck = [int(c) for c in shuffled_decks([self.seed], self.deals_done, 52)[0]]
        self.playing = [s for s in range(n) if not self.out[s]]
        # F4 / F24: ante, keeping one stake in reserve in a session.
        self.anted = {s: [] for s in range(n)}
        self.all_in = [False] * n
        for s in self.playing:
            if not self.session:
                pots = ["game", "flip", "flop"]
            elif self.money[s] >= 4 - 1e-9:
                pots = ["game", "flip", "flop"]
            elif self.money[s] >= 3 - 1e-9:
                pots = ["game", "flip"]
            else:
                pots = ["game"]
                self.all_in[s] = True
            for p in pots:
                self.money[s] -= 1
                self.pots[p] += 1
            self.anted[s] = pots
        order = deal_order(n, self.dealer, self.playing)
        self.order = order
        self.hands = {s: [] for s in range(n)}
        for k in range(5 * len(order)):
            self.hands[order[k % len(order)]].append(Card(deck[k]))
        self.dealt = {s: list(h) for s, h in self.hands.items()}
        self.flip_card = self.hands[self.dealer][4]
        self.stock = [Card(c) for c in deck[5 * len(order):]]
        self.discards: list[Card] = []
        self.spreads: list[dict] = []
        self.shown = {self.flip_card}
        self.lowest_shown = {"flip": self.flip_card.rank, "flop": None}
        self.first_turn_had = {s: False for s in range(n)}
        self.sides_paid = False
        self.took = {s: [] for s in range(n)}
        self.turns = 0  # F28: turns begun in this deal
        self.threes_laid = [0] * n
        self.spoiled = [False] * n
        self.won_game = [False] * n
        self.last_turn = False
        self.ended = None
        claimants = [s for s in order if self.total(s) in (49, 50)]
        if claimants and self.declare == "deal":  # F7: claimed before anybody plays, by the first claimant's action
            self.current = claimants[0]
            self.phase = "claim"
            return
        self.begin_turn(order[0])

    def claim(self, seat: int) -> None:
        """F7 (and F8 with ``deal``: every claimant pooled): 49 or 50 takes the game pot; each 50 also collects one
        stake from every player without 50. The claimants show their hands."""
        if self.declare == "deal":
            winners = [s for s in self.playing if self.total(s) in (49, 50)]
        else:
            winners = [seat]
        for s in winners:
            self.shown.update(self.hands[s])
        self.take_game_pot(winners)
        fifties = [s for s in winners if self.total(s) == 50]
        if fifties:
            payers = [s for s in self.playing if s not in fifties]
            for s in payers:
                self.money[s] -= 1
            for s in fifties:
                self.money[s] += len(payers) / len(fifties)
        self.end_deal("instant")

    def flip_suit(self) -> int:
        return self.flip_card.suit

    def begin_turn(self, seat: int) -> None:
        self.turns += 1
        self.current = seat
        self.phase = "draw"
        self.taken = None
        if not self.first_turn_had[seat]:
            self.first_turn_had[seat] = True
            self.show(seat)
            if seat == self.dealer:
                self.pay_sides()
            if self.declare == "first_turn" and self.total(seat) in (49, 50):
                self.phase = "claim"  # F7: claimed at the start of the claimant's first turn

    def show(self, seat: int) -> None:
        """F12: show the lowest flip-suit and flop-suit card if lower than what was shown before."""
        for pot, suit in (("flip", self.flip_suit()), ("flop", 3 - self.flip_suit())):
            mine = [c for c in self.hands[seat] if c.suit == suit]
            if mine:
                low = min(mine, key=lambda c: c.rank)
                if self.lowest_shown[pot] is None or low.rank < self.lowest_shown[pot]:
                    self.shown.add(low)
                    self.lowest_shown[pot] = low.rank

    def pay_sides(self) -> None:
        """F9–F11, F24: each side pot to the lowest dealt card of its suit among the players who anted it."""
        if self.sides_paid:
            return
        self.sides_paid = True
        for pot, suit in (("flip", self.flip_suit()), ("flop", 3 - self.flip_suit())):
            best = None
            for s in self.playing:
                if pot not in self.anted[s]:
                    continue
                for c in self.dealt[s]:
                    if c.suit == suit and (best is None or c.rank < best[1].rank):
                        best = (s, c)
            if best is not None:
                self.money[best[0]] += self.pots[pot]
                self.pots[pot] = 0.0

    def total(self, seat: int) -> int:
        return sum(c.points for c in self.hands[seat])

    def take_game_pot(self, winners: list[int]) -> None:
        share = self.pots["game"] / len(winners)
        for s in winners:
            self.money[s] += share
            self.won_game[s] = True
        self.pots["game"] = 0.0

    def end_deal(self, how: str) -> None:
        self.ended = how
        if not self.sides_paid:  # F12: those who had no turn yet show at once, in turn order
            for s in self.order:
                if not self.first_turn_had[s]:
                    self.show(s)
        self.pay_sides()
        self.deals_done += 1
        if not self.session:
            self.terminated = True
            return
        for s in self.playing:
            if self.all_in[s] and not self.won_game[s]:
                self.out[s] = True
        for s in range(self.n):
            if self.money[s] < 2 - 1e-9:
                self.out[s] = True
        left = [s for s in range(self.n) if not self.out[s]]
        if len(left) < 2 or (not self.until_one_left and self.deals_done >= self.num_deals):
            self.terminated = True
            return
        if self.deals_done >= self.max_deals:  # F28: the session would go on; it is cut off
            self.truncated = True
            return
        d = self.dealer
        for k in range(1, self.n + 1):
            if not self.out[(d + k) % self.n]:
                self.dealer = (d + k) % self.n
                break
        self.start_deal()

    # ----- legal actions ----------------------------------------------------------------------------------------
    def runs(self) -> list[dict]:
        return [sp for sp in self.spreads if sp["kind"] == "run"]

    def layoff_options(self, card: Card) -> list[tuple[str, dict]]:
        """F15: (name, spread) for every spread ``card`` can be laid off on."""
        options = []
        for sp in self.spreads:
            if sp["kind"] == "run" and card.suit == sp["suit"]:
                low = min(c.rank for c in sp["cards"])
                high = max(c.rank for c in sp["cards"])
                if card.rank == low - 1:
                    options.append((f"lay off {card!r} on the run starting {card_at(card.suit, low)!r}", sp))
                if card.rank == high + 1:
                    options.append((f"lay off {card!r} on the run ending {card_at(card.suit, high)!r}", sp))
            if sp["kind"] == "set" and len(sp["cards"]) == 3 and card.rank == sp["rank"]:
                options.append((f"lay off {card!r} on the set of {RANK_WORD[card.rank]}s", sp))
        return options

    def spread_options(self) -> list[tuple[str, str, list[Card]]]:
        """F14: (name, kind, cards) of every spread the current hand can lay."""
        hand = self.hands[self.current]
        options = []
        for suit in range(4):
            ranks = {c.rank for c in hand if c.suit == suit}
            for low in ranks:
                high = low + 2
                while all(r in ranks for r in range(low, high + 1)):
                    cards = [card_at(suit, r) for r in range(low, high + 1)]
                    options.append(("lay run " + "".join(map(repr, cards)), "run", cards))
                    high += 1
        for rank in range(1, 14):
            same = sorted((c for c in hand if c.rank == rank), key=lambda c: c.suit)
            for k in (3, 4):
                for combo in itertools.combinations(same, k):
                    options.append(("lay set " + "".join(map(repr, combo)), "set", list(combo)))
        return options

    def candidate_actions(self) -> dict:
        """Every action the turn structure allows now (before the rule on the card taken from the discard)."""
        acts = {}
        if self.phase == "claim":
            return {"claim 49/50": ("claim",)}
        if self.phase == "draw":
            acts["drop"] = ("drop",)
            acts["draw stock"] = ("stock",)
            if self.discards:
                acts[f"draw discard {self.discards[-1]!r}"] = ("take",)
            return acts
        hand = self.hands[self.current]
        for c in hand:
            if c != self.taken:
                acts[f"discard {c!r}"] = ("discard", c)
            for name, sp in self.layoff_options(c):
                acts[name] = ("layoff", c, sp)
        for name, kind, cards in self.spread_options():
            acts[name] = ("spread", kind, cards)
        return acts

    def legal(self) -> list[str]:
        """Names of the legal actions, sorted."""
        if self._legal is None:
            self._legal = self.compute_legal()
        return self._legal

    def compute_legal(self) -> list[str]:
        if self.done:
            return []
        acts = self.candidate_actions()
        if self.phase == "play" and self.taken is not None:
            for name, act in list(acts.items()):
                if act[0] in ("layoff", "spread"):
                    trial = copy.deepcopy(self)
                    trial.apply(name, trial.candidate_actions()[name], check_end=False)
                    left = trial.hands[trial.current]
                    if left == [trial.taken] and not trial.layoff_options(trial.taken):
                        del acts[name]  # the turn could not end (decision in the core's docstring)
        return sorted(acts)

    def forced(self) -> bool:
        """C8: exactly one legal action, played by the engine unless ``auto_forced`` is off (a claim, F7, is always
        asked)."""
        return self.auto_forced and len(self.legal()) == 1 and self.phase != "claim"

    def play_forced(self) -> None:
        """C8: play every forced move, noting each."""
        while not self.done and self.forced():
            name = self.legal()[0]
            self.forced_moves.append((self.current, name))
            self.play(name)

    # ----- playing ----------------------------------------------------------------------------------------------
    def step(self, name: str) -> None:
        """Play a legal action and then every forced move (C8)."""
        before = list(self.money)
        assert name in self.legal(), f"{name} is not legal: {self.legal()}"
        self.forced_moves = []
        self.play(name)
        self.play_forced()
        self.rewards = [(self.money[s] - before[s]) * self.stake for s in range(self.n)]

    def play(self, name: str) -> None:
        self.apply(name, self.candidate_actions()[name], check_end=True)

    def apply(self, name: str, act: tuple, check_end: bool) -> None:
        self._legal = None
        seat = self.current
        hand = self.hands[seat]
        if act[0] == "claim":
            self.claim(seat)
        elif act[0] == "drop":
            self.drop(seat)
        elif act[0] == "stock":
            hand.append(self.stock.pop(0))
            self.last_turn = not self.stock
            self.phase = "play"
        elif act[0] == "take":
            card = self.discards.pop()
            hand.append(card)
            self.taken = card
            self.took[seat].append(card)
            self.phase = "play"
        elif act[0] == "spread":
            _, kind, cards = act
            for c in cards:
                hand.remove(c)
            sp = {"owner": seat, "kind": kind, "cards": list(cards), "suit": cards[0].suit, "rank": cards[0].rank}
            self.spreads.append(sp)
            if len(cards) == 3:
                self.threes_laid[seat] += 1
            else:
                self.spoiled[seat] = True
            if check_end and not hand:
                self.went_out(seat, tunk=self.threes_laid[seat] == 2 and not self.spoiled[seat])
        elif act[0] == "layoff":
            _, card, sp = act
            hand.remove(card)
            sp["cards"].append(card)
            self.spoiled[seat] = True
            if check_end and not hand:
                self.went_out(seat, tunk=False)
        elif act[0] == "discard":
            card = act[1]
            hand.remove(card)
            self.discards.append(card)
            if not hand:
                self.went_out(seat, tunk=False)
            elif self.last_turn:
                self.showdown(None)
            elif self.turns >= self.max_turns:  # F28: the deal is cut off; nothing more is settled
                self.truncated = True
            else:
                k = 1
                while (seat + k) % self.n not in self.playing:
                    k += 1
                self.begin_turn((seat + k) % self.n)

    def went_out(self, seat: int, tunk: bool) -> None:
        """F18; F20: on a tunk every other player pays one stake into the game pot first."""
        if tunk:
            for s in self.playing:
                if s != seat:
                    self.money[s] -= 1
                    self.pots["game"] += 1
        self.take_game_pot([seat])
        self.end_deal("tunk" if tunk else "out")

    def drop(self, seat: int) -> None:
        self.showdown(seat)

    def showdown(self, dropper: int | None) -> None:
        """F19 (a drop) or F21 (the stock is exhausted): everybody shows; lowest total wins."""
        for s in self.playing:
            self.shown.update(self.hands[s])
        totals = {s: self.total(s) for s in self.playing}
        if dropper is None:
            low = min(totals.values())
            self.take_game_pot([s for s in self.playing if totals[s] == low])
            self.end_deal("stock")
            return
        others = {s: t for s, t in totals.items() if s != dropper}
        low = min(others.values())
        if totals[dropper] < low:
            self.take_game_pot([dropper])
            self.end_deal("drop won")
        else:
            self.money[dropper] -= 1
            self.pots["game"] += 1
            self.take_game_pot([s for s, t in others.items() if t == low])
            self.end_deal("caught")
