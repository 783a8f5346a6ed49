"""What the lines of a game log say happened, as one seat may know it: as HTML text (:func:`line_html`) and as the
highlights of the drawn table (:func:`highlight`: who moved, the forced moves, the cards the move laid).

A line's events are public (:mod:`envs.gamelog`), and so is every action except another seat's secret choice,
which is named as the other players see it (``select (hidden)``, T12): the same names ``cardgym play`` prints. The
``game`` line (the header) holds the whole deck and is never narrated.
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any

from envs.core.obs_spec import PublicView
from envs.gamelog import cards_text, seat_name
from envs.html import colour_text


def action_name(move: dict[str, Any], view: PublicView, viewer: int | None) -> str:
    """The name of a logged move (a step or a forced move) as seat ``viewer`` may know it, plain text."""
    secret = move["secret"] and move["seat"] != viewer
    return view.public_action_name(move["name"]) if secret else move["name"]


def _rewards(rewards: list[float]) -> str:
    return ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(rewards) if r)


def _forced(moves: list[dict[str, Any]], view: PublicView, viewer: int | None) -> str:
    """C8: one line per forced move, marked as such."""
    return "".join(f'<br>&nbsp;&nbsp;then {seat_name(m["seat"])} <span class="forced">(forced)</span>: '
                   f"{colour_text(action_name(m, view, viewer))}" for m in moves)


def _events(line: dict[str, Any]) -> str:
    return "".join(f"<br>&nbsp;&nbsp;&nbsp;&nbsp;{colour_text(e['text'])}" for e in line["events"])


def line_html(line: dict[str, Any], view: PublicView, viewer: int | None) -> str:
    """One line of a log (not the header) as HTML: a step with its forced moves, public events and rewards; a deal's
    start, end or the game's result."""
    kind = line["type"]
    if kind == "step":
        paid = _rewards(line["rewards"])
        return (f"{line['n']}. {seat_name(line['seat'])}: {colour_text(action_name(line, view, viewer))}"
                + _forced(line["forced"], view, viewer) + _events(line)
                + (f"<br>&nbsp;&nbsp;&nbsp;&nbsp;rewards: {html.escape(paid)}" if paid else ""))
    if kind == "deal":
        dealer = "" if line["dealer"] is None else f", dealer {seat_name(line['dealer'])}"
        return f"Deal {line['deal'] + 1}{dealer}." + _events(line) + _forced(line["forced"], view, viewer)
    if kind == "deal_end":
        shown = "".join(f"<br>&nbsp;&nbsp;&nbsp;&nbsp;{seat_name(int(s))} showed "
                        f"{colour_text(cards_text(cards))}" for s, cards in line["shown"].items())
        return f"Deal {line['deal'] + 1} over: {html.escape(line['text'])}" + shown
    if kind == "result":
        end = "" if line["terminated"] else " (cut off at the turn limit)" if line["truncated"] else ""
        return f"Game over{end} after {line['steps']} decisions: " + html.escape(
            ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(line["returns"])))
    raise ValueError(f"not a line to narrate: {kind!r}")


@dataclasses.dataclass
class Highlight:
    """What the drawing marks of the last move: the seat that moved and what it did, the forced moves, the cards
    the move laid or showed and the board's spaces whose chips changed."""

    actor: int | None = None
    move: str = ""
    """The acting seat's move as the viewer may know it (HTML)."""
    forced: dict[int, list[str]] = dataclasses.field(default_factory=dict)
    """Seat → its forced moves of the step, in order (HTML)."""
    new: set[tuple[str, int | None, int]] = dataclasses.field(default_factory=set)
    """(field, seat or ``None`` for a card of the middle, card) of every card the move added."""
    changed: set[tuple[str, str]] = dataclasses.field(default_factory=set)
    """(field, name) of every number the move changed (a space of the board: ``("layout", "kitty")``)."""


def highlight(line: dict[str, Any] | None, view: PublicView, viewer: int | None) -> Highlight:
    """The highlights of a ``step`` or ``deal`` line (``None``: nothing to mark)."""
    out = Highlight()
    if line is None:
        return out
    if line["type"] == "step":
        out.actor, out.move = line["seat"], colour_text(action_name(line, view, viewer))
    for m in line.get("forced", []):
        out.forced.setdefault(m["seat"], []).append(colour_text(action_name(m, view, viewer)))
    if line["type"] == "step":
        for e in line["events"]:
            out.new |= {(e["field"], e.get("seat"), c) for c in e.get("added", [])}
            out.changed |= {(e["field"], k) for k in e.get("changes", {})}
    return out
