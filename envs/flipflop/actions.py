"""Flip Flop card layout and action table.

Inside the core a set of cards is a ``uint64`` in the *ace-low* layout: bit ``suit * 13 + low_rank`` with
``low_rank`` 0 = ace, 1 = two, … 12 = king (F2: runs are aces low). Then a run is a block of consecutive bits and
"the next card at either end" is a shift by one. Card ids at the public surface (decks, action names, the
observation) stay the C1 ids; :data:`LOW_OF` and :data:`PUB_OF` convert.

Action ids (472 in all; names are fixed functions of the id):

==========  =====  ==========================================================================================
ids         count  action
==========  =====  ==========================================================================================
0           1      ``drop`` (F17, instead of drawing)
1           1      ``draw stock``
2–53        52     ``draw discard <card>`` (C1 card id order; legal only for the top of the discard pile)
54–105      52     ``discard <card>``
106–257     152    ``lay run <cards>``: per suit ♣♦♥♠, lengths 3–6, lowest card ace … (aces low, F14)
258–322     65     ``lay set <cards>``: per rank 2…A the four sets of three (missing ♣, ♦, ♥, ♠), then the 13
                   sets of four
323–470     148    ``lay off <card> on the run starting <card+1>`` (48, no king), ``… on the run ending <card-1>``
                   (48, no ace), ``… on the set of <rank>s`` (52), F15
471         1      ``claim 49/50`` (F7: the claimant's one legal action, always asked)
==========  =====  ==========================================================================================

A lay-off names its target by the card it touches, which is unique: a run's
end card belongs to exactly one spread, and a rank has at most one set.
"""

from __future__ import annotations

import numpy as np

from envs.core.cards import DECK_SIZE, NUM_RANKS, RANK_LETTERS, card_str

# ----- ace-low layout ----------------------------------------------------------------------------------------------
_SUITS = np.arange(DECK_SIZE) // NUM_RANKS
_RANKS = np.arange(DECK_SIZE) % NUM_RANKS
LOW_OF = (_SUITS * NUM_RANKS + (_RANKS + 1) % NUM_RANKS).astype(np.int64)
"""``LOW_OF[c]``: the ace-low bit of public card id ``c``."""
PUB_OF = np.argsort(LOW_OF).astype(np.int64)
"""``PUB_OF[b]``: the public card id of ace-low bit ``b``."""
SUIT_LOW = np.array([np.uint64(0x1FFF) << np.uint64(13 * s) for s in range(4)], dtype=np.uint64)
"""Cards of each suit (the same bits in both layouts)."""
ACES = np.uint64(sum(1 << (13 * s) for s in range(4)))
KINGS = np.uint64(sum(1 << (13 * s + 12) for s in range(4)))
VALUE_OF_LOW = np.minimum(np.arange(DECK_SIZE) % NUM_RANKS + 1, 10).astype(np.int64)
"""F2: points of each ace-low bit (ace 1, two 2, …, ten/J/Q/K 10)."""
SUIT_POINTS = np.array([sum(VALUE_OF_LOW[b] for b in range(13) if x >> b & 1) for x in range(1 << 13)], dtype=np.int64)
"""``SUIT_POINTS[x]``: the points of the cards of one suit whose ace-low rank bits are ``x``."""


def low_rank_name(low_rank: int) -> str:
    """Rank letter of an ace-low rank (0 = A)."""
    return RANK_LETTERS[(low_rank - 1) % NUM_RANKS]


def pub_card(low_bit: int) -> int:
    """Public id of an ace-low bit."""
    return int(PUB_OF[low_bit])


# ----- action table ------------------------------------------------------------------------------------------------
DROP = 0
DRAW_STOCK = 1
DRAW_DISCARD = 2
DISCARD = DRAW_DISCARD + DECK_SIZE
LAY_RUN = DISCARD + DECK_SIZE
MAX_RUN = 6  # the most cards a hand can hold (five, plus the card drawn)


def _runs() -> list[tuple[int, int, int]]:
    return [(s, length, start) for s in range(4) for length in range(3, MAX_RUN + 1) for start in range(14 - length)]


RUNS = _runs()
LAY_SET = LAY_RUN + len(RUNS)
SETS = [(r, missing) for r in range(NUM_RANKS) for missing in range(4)] + [(r, -1) for r in range(NUM_RANKS)]
"""(public rank, missing suit or -1 for a set of four), in action order."""
LAY_OFF = LAY_SET + len(SETS)
BELOW, ABOVE, ON_SET = 0, 1, 2
LAYOFFS = (
    [(BELOW, b) for b in range(DECK_SIZE) if b % NUM_RANKS != 12]
    + [(ABOVE, b) for b in range(DECK_SIZE) if b % NUM_RANKS != 0]
    + [(ON_SET, b) for b in range(DECK_SIZE)]
)
"""(kind, ace-low bit of the card laid off), in action order; BELOW: the card goes under a run starting one higher."""
CLAIM = LAY_OFF + len(LAYOFFS)
"""``claim 49/50``: the claimant of a 49 or 50 shows the hand and wins (F7, F8); its only legal action."""
NUM_ACTIONS = CLAIM + 1


def _spread_cards() -> np.ndarray:
    masks = [((1 << length) - 1) << (13 * s + start) for s, length, start in RUNS]
    for r, missing in SETS:
        masks.append(sum(1 << int(LOW_OF[s * NUM_RANKS + r]) for s in range(4) if s != missing))
    return np.array(masks, dtype=np.uint64)


SPREAD_CARDS = _spread_cards()
"""Ace-low masks of the cards of every lay-run and lay-set action (action ``LAY_RUN + i``)."""
NUM_SPREADS = len(SPREAD_CARDS)
IS_RUN = np.arange(NUM_SPREADS) < len(RUNS)
SPREAD_SIZE = np.bitwise_count(SPREAD_CARDS).astype(np.int64)
FOURTH_CARD = np.array(
    [0] * len(RUNS)
    + [1 << int(LOW_OF[m * NUM_RANKS + r]) if m >= 0 else 0 for r, m in SETS],
    dtype=np.uint64,
)
"""For a set of three: the mask of the missing card of its rank (0 otherwise)."""
RUN_VALID = np.array(
    [sum(1 << (13 * s + b) for s in range(4) for b in range(14 - length)) for length in range(3, MAX_RUN + 1)],
    dtype=np.uint64,
)
"""For run lengths 3–6: the ace-low bits where a run of that length may start within its suit."""
SPREAD_SOURCE = np.array(
    [length - 3 for _, length, _ in RUNS] + [4 + (m if m >= 0 else 4) for _, m in SETS], dtype=np.int64
)
SPREAD_SHIFT = np.array(
    [13 * s + start for s, _, start in RUNS] + [(r + 1) % NUM_RANKS for r, _ in SETS], dtype=np.uint64
)
"""Spread action ``i`` is legal when bit ``SPREAD_SHIFT[i]`` of pattern ``SPREAD_SOURCE[i]`` is set; the patterns
are the run starts of lengths 3–6 (ace-low bits) and, per ace-low rank, the sets missing ♣, ♦, ♥, ♠ and the set of
four (see ``FlipFlopGame._spread_patterns``)."""
LAYOFF_KIND = np.array([k for k, _ in LAYOFFS], dtype=np.int64)
LAYOFF_BIT = np.array([b for _, b in LAYOFFS], dtype=np.uint64)
LAYOFF_TARGET = np.array(
    [1 << (b + 1) if k == BELOW else 1 << (b - 1) if k == ABOVE else 0 for k, b in LAYOFFS], dtype=np.uint64
)
"""The mask of the run card a lay-off touches (0 for a set: the set is found by rank)."""
LAYOFF_RANK = (LAYOFF_BIT % NUM_RANKS).astype(np.int64)
"""Ace-low rank of the card of each lay-off."""
RANK_LOW = np.array([sum(1 << (13 * s + r) for s in range(4)) for r in range(NUM_RANKS)], dtype=np.uint64)
"""``RANK_LOW[r]``: the four cards of ace-low rank ``r``."""


def _name(a: int) -> str:
    def c(low_bit: int) -> str:
        return card_str(pub_card(low_bit), unicode=True)

    if a == DROP:
        return "drop"
    if a == DRAW_STOCK:
        return "draw stock"
    if DRAW_DISCARD <= a < DISCARD:
        return f"draw discard {card_str(a - DRAW_DISCARD, unicode=True)}"
    if DISCARD <= a < LAY_RUN:
        return f"discard {card_str(a - DISCARD, unicode=True)}"
    if LAY_RUN <= a < LAY_OFF:
        i = a - LAY_RUN
        bits = [b for b in range(DECK_SIZE) if int(SPREAD_CARDS[i]) >> b & 1]
        return ("lay run " if IS_RUN[i] else "lay set ") + "".join(c(b) for b in bits)
    if a == CLAIM:
        return "claim 49/50"
    kind, b = LAYOFFS[a - LAY_OFF]
    if kind == BELOW:
        return f"lay off {c(b)} on the run starting {c(b + 1)}"
    if kind == ABOVE:
        return f"lay off {c(b)} on the run ending {c(b - 1)}"
    return f"lay off {c(b)} on the set of {low_rank_name(b % NUM_RANKS)}s"


ACTION_NAMES = [_name(a) for a in range(NUM_ACTIONS)]
"""Every action's readable name, in id order."""
