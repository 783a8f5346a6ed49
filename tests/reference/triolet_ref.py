"""A slow, plain reference of Le triolet (docs/triolet.md), one table, written straight from the rules.

Cards are the real ids 0..103 (C1, C3); hands, face-up rows, the stock and the pile are Python lists, the pile in
the order the cards were played. Nothing here is shared with the batched core except the action numbering, which is
the public interface both must follow (the action table of ``envs/triolet_v1.py``):

    8 r + k - 1         play k cards of rank r from the hand
    104 + c             play the face-up card c (c = id % 52)
    156 + 2 r + k - 2   play k = 2 or 3 face-up cards of rank r (faceup_sets)
    182 + j             turn over face-down slot j
    185                 pick up the pile
    186                 ready
    187 + 3 i + j       swap hand card i (the hand sorted by card identity) with the face-up card of slot j

It also keeps what every player knows of each hand (L17): the cards that entered it publicly (a pick-up, the face-up
card taken in a swap, with ``show_failed_facedown`` a turned face-down card that could not be played), less the
cards played from it. Of several cards of one rank played from a hand, the lowest identities go first (the engine's
choice, shared with the core: it decides which known cards leave the record).
"""

from __future__ import annotations

from collections import Counter

ORDER = ["3", "4", "5", "6", "8", "9", "J", "Q", "K", "A", "2"]  # L2, low to high; 7 and 10 are special
RANKS = "2 3 4 5 6 7 8 9 10 J Q K A".split()  # C1 rank ids 0..12
SEVEN, TEN = RANKS.index("7"), RANKS.index("10")
PICK_UP, READY = 185, 186


def rank(card: int) -> int:
    return card % 13


def beats(card_rank: int, pile: list[int]) -> bool:
    """L6–L8: may a card of this rank go on the pile?"""
    if not pile or rank(pile[-1]) == SEVEN or card_rank in (SEVEN, TEN):
        return True
    top = rank(pile[-1])
    return ORDER.index(RANKS[card_rank]) > ORDER.index(RANKS[top])


class TrioletRef:
    """One table. ``deck`` is the list of real card ids in dealing order; seat s gets deck[9s:9s+9] as three
    face-down, three face-up and three hand cards (L3), the rest is the stock."""

    def __init__(self, num_players: int, deck: list[int], dealer: int, faceup_sets: bool = False,
                 max_turns: int = 1000, show_failed_facedown: bool = False) -> None:
        self.n = num_players
        self.faceup_sets = faceup_sets
        self.show_failed_facedown = show_failed_facedown
        self.max_turns = max_turns
        self.facedown = [list(deck[9 * s : 9 * s + 3]) for s in range(self.n)]
        self.faceup = [list(deck[9 * s + 3 : 9 * s + 6]) for s in range(self.n)]
        self.hand = [list(deck[9 * s + 6 : 9 * s + 9]) for s in range(self.n)]
        self.stock = list(deck[9 * self.n :])
        self.known: list[Counter] = [Counter() for _ in range(self.n)]  # identities known to be in each hand
        self.pile: list[int] = []
        self.burned: list[int] = []
        self.first = (dealer - 1) % self.n  # L5
        self.current = self.first
        self.swapping = True
        self.swaps_made = 0
        self.ready_count = 0
        self.turns = 0
        self.terminated = False
        self.truncated = False
        self.rewards = [0.0] * self.n
        self.forced: list[tuple[int, int]] = []  # C8: (seat, action) of the last step's forced moves
        self._resolve_forced()

    # ----- what may be done ------------------------------------------------------------------------------------
    def legal(self) -> set[int]:
        if self.terminated or self.truncated:
            return set()
        me = self.current
        if self.swapping:
            moves = {READY}
            if self.swaps_made < 3:  # L4
                ordered = sorted(c % 52 for c in self.hand[me])
                for i, h in enumerate(ordered):
                    if i > 0 and ordered[i - 1] == h:
                        continue  # the same card again: only its first place is named
                    for j, f in enumerate(self.faceup[me]):
                        if f is not None and h != f % 52:
                            moves.add(187 + 3 * i + j)
            return moves
        moves = set()
        if self.hand[me]:  # L6
            for r, count in Counter(rank(c) for c in self.hand[me]).items():
                if beats(r, self.pile):
                    moves.update(8 * r + k - 1 for k in range(1, count + 1))
        elif not self.stock and any(c is not None for c in self.faceup[me]):  # L12
            ups = [c for c in self.faceup[me] if c is not None and beats(rank(c), self.pile)]
            moves.update(104 + c % 52 for c in ups)
            if self.faceup_sets:
                for r, same in Counter(rank(c) for c in ups).items():
                    moves.update(156 + 2 * r + k - 2 for k in range(2, same + 1))
        elif not self.stock:  # L13
            moves.update(182 + j for j in range(3) if self.facedown[me][j] is not None)
        return moves or {PICK_UP}  # L11

    # ----- doing it ----------------------------------------------------------------------------------------------
    def step(self, action: int) -> list[float]:
        """Play ``action`` and every forced move after it; returns each seat's reward for the step."""
        assert action in self.legal(), (action, sorted(self.legal()))
        self.rewards = [0.0] * self.n
        self.forced = []
        self._do(action)
        self._resolve_forced()
        return self.rewards

    def _resolve_forced(self) -> None:
        while True:  # C8
            moves = self.legal()
            if len(moves) != 1:
                return
            move = moves.pop()
            self.forced.append((self.current, move))
            self._do(move)

    def _do(self, action: int) -> None:
        me = self.current
        if self.swapping:
            if action == READY:
                self.swaps_made = 0
                self.ready_count += 1
                self.current = (me - 1) % self.n
                if self.ready_count == self.n:
                    self.swapping = False
            else:
                i, slot = divmod(action - 187, 3)
                card_h = sorted(self.hand[me], key=lambda c: c % 52)[i]
                taken = self.faceup[me][slot]
                self.hand[me].remove(card_h)
                self.hand[me].append(taken)
                self.faceup[me][slot] = card_h
                self.known[me][card_h % 52] = max(self.known[me][card_h % 52] - 1, 0)
                self.known[me][taken % 52] += 1  # seen going from the face-up row into the hand (L17)
                self.swaps_made += 1
            return
        if action < 104:
            r, extra = divmod(action, 8)
            played = sorted((c for c in self.hand[me] if rank(c) == r), key=lambda c: c % 52)[: extra + 1]
            for c in played:
                self.hand[me].remove(c)
                self.known[me][c % 52] = max(self.known[me][c % 52] - 1, 0)
            self._put_on_pile(played)
        elif action < 156:
            slot = next(j for j, c in enumerate(self.faceup[me]) if c is not None and c % 52 == action - 104)
            card = self.faceup[me][slot]
            self.faceup[me][slot] = None
            self._put_on_pile([card])
        elif action < 182:
            r, extra = divmod(action - 156, 2)
            played = []
            for j, c in enumerate(self.faceup[me]):
                if c is not None and rank(c) == r and len(played) < extra + 2:
                    played.append(c)
                    self.faceup[me][j] = None
            self._put_on_pile(played)
        elif action < PICK_UP:
            card = self.facedown[me][action - 182]
            self.facedown[me][action - 182] = None
            if beats(rank(card), self.pile):
                self._put_on_pile([card])
            else:  # L13: into the hand, seen by all only with show_failed_facedown
                self.hand[me].append(card)
                if self.show_failed_facedown:
                    self.known[me][card % 52] += 1
                self._pick_up()
        else:
            self._pick_up()
        self.turns += 1
        if not self.terminated and self.turns >= self.max_turns:  # L16, C13
            self.truncated = True

    def _pick_up(self) -> None:
        self.hand[self.current].extend(self.pile)  # L11
        self.known[self.current].update(c % 52 for c in self.pile)  # L17: everybody saw the pile go
        self.pile = []
        self.current = (self.current - 1) % self.n

    def _put_on_pile(self, cards: list[int]) -> None:
        me = self.current
        self.pile.extend(cards)
        top4 = self.pile[-4:]
        burn = any(rank(c) == TEN for c in cards) or (len(top4) == 4 and len({rank(c) for c in top4}) == 1)
        if burn:  # L8, L9
            self.burned.extend(self.pile)
            self.pile = []
        while len(self.hand[me]) < 3 and self.stock:  # L10
            self.hand[me].append(self.stock.pop(0))
        if not self.hand[me] and all(c is None for c in self.faceup[me] + self.facedown[me]):  # L15
            self.terminated = True
            self.rewards = [-1.0 / (self.n - 1)] * self.n  # L16
            self.rewards[me] = 1.0
            return
        if not burn:  # L14: a player who burned plays again
            self.current = (me - 1) % self.n

    @property
    def current_player(self) -> int:
        return -1 if self.terminated or self.truncated else self.current
