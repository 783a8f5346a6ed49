"""Declarative observation layouts: each game describes its observation vector once, as a list of named pieces.

From that one declaration come the observation's size, the offset of every piece (the kernels write at these
offsets), the index table of the game module's docstring (:meth:`ObservationSpec.table`) and the game log's public
view (:meth:`ObservationSpec.public_view`: which pieces are public, how a log shows them).

A :class:`Piece` appears once; a :class:`Seats` group repeats its pieces once per relative seat (seat ``j`` is the
seat ``j`` places to the viewer's left, ``j = 0`` the viewer), the pieces of one seat lying together::

    SPEC = ObservationSpec(
        Piece("hand", 52, "the viewer's own hand", log=Log("hand", "cards", private=True)),
        Seats(9, Piece("balance", 1, "chips", log=Log("chips", "seat_values", events=False))),
        Piece("phase", 9, "one-hot of the decision the table waits on"),
    )
    SPEC.size, SPEC.offset("balance"), SPEC.stride("balance")   # 70, 52, 1
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Literal

FieldKind = Literal["cards", "seat_cards", "values", "seat_values", "seat_onehot", "onehot"]


@dataclasses.dataclass(frozen=True)
class PublicField:
    """One public (or, with ``private``, viewer-only) field of a game's observation, as game logs read it.

    Kinds: ``cards`` — 52 copy counts in card id order (C1); ``seat_cards`` — one such block per relative seat,
    ``stride`` apart; ``values`` — ``len(names)`` numbers; ``seat_values`` — one number per relative seat, ``stride``
    apart; ``seat_onehot`` — a one-hot over relative seats (``stride`` apart); ``onehot`` — a one-hot over ``names``.
    """

    name: str
    label: str
    kind: FieldKind
    offset: int
    stride: int = 1
    names: tuple[str, ...] = ()
    private: bool = False
    """The viewer's own information (their hand): never logged; shown in HTML to that viewer only."""
    shown: bool = False
    """Cards a seat showed to everybody: repeated in the deal's summary (the field's value at the deal's end)."""
    in_hand: bool = False
    """The field holds cards in the seat's hand now: a card leaves it when it leaves the hand (discarded, laid).
    The summary of a deal that a step ends *and* deals the next cannot see how the old deal ended (the next deal's
    observation replaces it); it leaves out the acting seat's cards of such a field, whose hand that step changed."""
    events: bool = True
    """Changes become log events (``False`` for fields the step's rewards or action name already tell)."""


@dataclasses.dataclass(frozen=True)
class PublicView:
    """What a game's observation says publicly (each game's ``observation.VIEW``, built by
    :meth:`ObservationSpec.public_view`)."""

    max_seats: int
    fields: tuple[PublicField, ...]
    dealer: PublicField
    """The ``seat_onehot`` field of the dealer."""
    deal_index: int | None = None
    """Observation index of the number of the current deal (``None``: one deal per episode)."""
    title: str = ""
    """Readable game name."""
    secret_actions: tuple[str, ...] = ()
    """Prefixes of action names that other players do not see (e.g. Tripoli's ``select``: the poker hand is chosen
    in secret, T12). The log keeps the action (it must replay) and marks it ``"secret": true``."""

    def is_secret(self, action_name: str) -> bool:
        return action_name.startswith(self.secret_actions)

    def public_action_name(self, action_name: str) -> str:
        """The name as the other players may see it (``"select (hidden)"`` for a secret choice)."""
        if not self.is_secret(action_name):
            return action_name
        return next(p for p in self.secret_actions if action_name.startswith(p)).rstrip() + " (hidden)"


@dataclasses.dataclass(frozen=True)
class Log:
    """How the game log shows a piece (see :class:`PublicField` for the kinds and flags)."""

    label: str
    """Readable name in logs, e.g. ``"cards in hand"``."""
    kind: FieldKind
    """How the piece's numbers read (``seat_*`` kinds for a piece inside :class:`Seats`, or a ``seat_onehot`` piece
    with one entry per relative seat)."""
    names: tuple[str, ...] = ()
    """Names of the entries of a ``values`` or ``onehot`` piece."""
    private: bool = False
    """The viewer's own information: never logged."""
    shown: bool = False
    """Cards shown to everybody: repeated in the deal's summary."""
    in_hand: bool = False
    """Cards in the seat's hand now (see :attr:`PublicField.in_hand`)."""
    events: bool = True
    """Changes become log events."""


@dataclasses.dataclass(frozen=True)
class Piece:
    """A named run of ``size`` numbers of the observation."""

    name: str
    """Unique name, used by kernels (``SPEC.offset(name)``) and tests."""
    size: int
    """How many numbers."""
    meaning: str
    """One line for the docstring table: what the numbers say."""
    log: Log | None = None
    """How game logs show the piece (``None``: logs do not read it)."""


class Seats:
    """Pieces repeated once per relative seat (``count`` seats, padded with zeros past the table's size)."""

    def __init__(self, count: int, *pieces: Piece) -> None:
        self.count = count
        self.pieces = pieces
        self.stride = sum(p.size for p in pieces)


class ObservationSpec:
    """An observation layout: :class:`Piece` and :class:`Seats` entries in order."""

    def __init__(self, *entries: Piece | Seats) -> None:
        self.entries = entries
        self._at: dict[str, tuple[int, int, Piece, int]] = {}  # name -> (offset, stride, piece, seats)
        offset = 0
        for entry in entries:
            group = entry.pieces if isinstance(entry, Seats) else (entry,)
            inner = 0
            for piece in group:
                if piece.name in self._at:
                    raise ValueError(f"observation piece {piece.name!r} declared twice")
                if piece.size < 1:
                    raise ValueError(f"observation piece {piece.name!r} has size {piece.size}")
                if isinstance(entry, Seats):
                    self._at[piece.name] = (offset + inner, entry.stride, piece, entry.count)
                else:
                    self._at[piece.name] = (offset, 0, piece, 1)
                inner += piece.size
            offset += entry.stride * entry.count if isinstance(entry, Seats) else entry.size
        self.size = offset
        """Length of the observation vector."""

    @property
    def names(self) -> list[str]:
        """Every piece's name, in order of first offset."""
        return list(self._at)

    def offset(self, name: str) -> int:
        """Index of the first number of piece ``name`` (for a per-seat piece: relative seat 0's)."""
        return self._at[name][0]

    def stride(self, name: str) -> int:
        """Distance between relative seats of a per-seat piece (0 for a piece that appears once)."""
        return self._at[name][1]

    def span(self, name: str) -> tuple[int, int]:
        """(first index, index past the last) of piece ``name``, every entry of its group included; for a piece
        repeated per seat only when it is alone in its :class:`Seats` group (else its entries are interleaved)."""
        offset, stride, piece, count = self._at[name]
        if stride and stride != piece.size:
            raise ValueError(f"observation piece {name!r} is interleaved with other per-seat pieces: no single span")
        return offset, offset + piece.size * count

    def count(self, name: str) -> int:
        """Entries of piece ``name``: the seats (or slots) of its :class:`Seats` group, 1 for a piece that appears
        once."""
        return self._at[name][3]

    def size_of(self, name: str) -> int:
        """Numbers in piece ``name`` (per seat, for a per-seat piece)."""
        return self._at[name][2].size

    def table(self, width: int = 116) -> str:
        """The index table for a module docstring (reStructuredText), one row per piece, meanings wrapped so that
        lines stay within ``width`` characters. A piece of a :class:`Seats` group has the offset ``o + s j``: entry
        ``j = 0..count-1`` of its group (a relative seat, or a slot) starts at ``o + s j``."""
        rows = []
        for name, (offset, stride, piece, count) in self._at.items():
            where = f"{offset} + {stride} j" if stride else str(offset)
            rows.append((where, str(piece.size), name, piece.meaning + (f" (j = 0..{count - 1})" if stride else "")))
        head = ("offset", "length", "name", "meaning")
        widths = [max(len(r[k]) for r in [*rows, head]) for k in range(3)]
        meaning_width = max(30, width - sum(widths) - 6)
        lines = []
        for where, size, name, meaning in rows:
            wrapped = textwrap.wrap(meaning, meaning_width) or [""]
            lines.append(f"{where:<{widths[0]}}  {size:<{widths[1]}}  {name:<{widths[2]}}  {wrapped[0]}".rstrip())
            pad = " " * (sum(widths) + 6)
            lines += [pad + more for more in wrapped[1:]]
        rule = "  ".join("=" * w for w in [*widths, meaning_width])
        title = "  ".join(h.ljust(w) for h, w in zip(head, [*widths, meaning_width], strict=True)).rstrip()
        return "\n".join([rule, title, rule, *lines, rule]) + f"\n\nSize: {self.size} float32.\n"

    def field(self, name: str) -> PublicField:
        """Piece ``name`` as a game log reads it (the piece must declare a :class:`Log`)."""
        offset, stride, piece, _seats = self._at[name]
        log = piece.log
        if log is None:
            raise ValueError(f"observation piece {name!r} declares no log")
        return PublicField(name, log.label, log.kind, offset, stride or 1, log.names, log.private, log.shown,
                           log.in_hand, log.events)

    def public_view(self, title: str, max_seats: int, dealer: str, deal_index: tuple[str, int] | None = None,
                    secret_actions: tuple[str, ...] = (), order: tuple[str, ...] = ()) -> PublicView:
        """The game log's view: every piece with a :class:`Log` except the ``dealer`` piece, which is the view's
        dealer field, in the order of ``order`` (the pieces it names first; then the others in layout order: a
        log lists each step's events in this order); ``deal_index`` = (piece, index within it) of the current
        deal's number."""
        logged = [n for n, at in self._at.items() if at[2].log is not None and n != dealer]
        unknown = set(order) - set(logged)
        if unknown:
            raise ValueError(f"public_view order names pieces without a log: {sorted(unknown)}")
        fields = tuple(self.field(n) for n in [*order, *(n for n in logged if n not in order)])
        index = None if deal_index is None else self.offset(deal_index[0]) + deal_index[1]
        return PublicView(max_seats=max_seats, fields=fields, dealer=self.field(dealer), deal_index=index,
                          title=title, secret_actions=secret_actions)
