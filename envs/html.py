"""Notebook rendering: a table (or a game log) as a compact HTML table of its cards, ♦♥ red and ♣♠ black.

:func:`table_html` draws one table as seat ``viewer`` may see it (``None``: public information only) from that
seat's observation and the game's :class:`~envs.gamelog.PublicView`, so it shows nothing hidden from the viewer
(C12). :func:`log_html` draws a :class:`~envs.gamelog.GameLog`. ``CardGymEnv`` uses them for ``_repr_html_`` and
``render_mode="html"``.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.cards import card_str, suit_of
from envs.gamelog import PublicView, field_value, public_view, seat_name

if TYPE_CHECKING:
    from envs.core.game import BatchedGame, BatchState
    from envs.gamelog import GameLog

RED, BLACK = "#c0392b", "#1a1a1a"
STYLE = ("<style>.cardgym td,.cardgym th{padding:1px 6px;text-align:left;vertical-align:top;font-family:monospace}"
         ".cardgym th{font-weight:600}.cardgym .card{white-space:nowrap}</style>")
MAX_LOG_ROWS = 300
"""Steps drawn by :func:`log_html` (the rest is summarised)."""
_CARD_RE = re.compile(r"(10|[2-9JQKA])?([♣♦♥♠])")


def card_html(card: int) -> str:
    """One card, e.g. ``<span style="color:#c0392b">Q♥</span>``."""
    colour = RED if suit_of(card) in (1, 2) else BLACK
    return f'<span class="card" style="color:{colour}">{card_str(card, True)}</span>'


def cards_html(cards: list[int]) -> str:
    return " ".join(card_html(c) for c in cards) or "–"


def colour_text(text: str) -> str:
    """HTML-escaped ``text`` with every card (and suit symbol) in its suit's colour."""
    def paint(m: re.Match[str]) -> str:
        colour = RED if m.group(2) in "♦♥" else BLACK
        return f'<span class="card" style="color:{colour}">{m.group(0)}</span>'

    return _CARD_RE.sub(paint, html.escape(text))


def _fmt(x: float) -> str:
    return f"{x:g}"


def _rows(view: PublicView, obs: np.ndarray, viewer: int | None, n: int) -> list[tuple[str, str]]:
    """(label, cell HTML) rows of the fields of ``view`` in seat ``viewer``'s observation."""
    rows: list[tuple[str, str]] = []
    seat = 0 if viewer is None else viewer
    for f in view.fields:
        if f.private and viewer is None:
            continue
        value: Any = field_value(f, obs, seat, n)
        label = f"your {f.label} ({seat_name(viewer)})" if f.private else f.label
        if f.kind == "cards":
            if value or f.private:
                rows.append((label, cards_html(value)))
        elif f.kind == "seat_cards":
            rows += [(f"{seat_name(s)} {f.label}", cards_html(c)) for s, c in sorted(value.items()) if c]
        elif f.kind == "values":
            rows.append((label, " ".join(f"{html.escape(k)}:&nbsp;{_fmt(v)}" for k, v in value.items())))
        elif f.kind == "seat_values":
            if any(value.values()):
                rows.append((label, " ".join(f"{seat_name(s)}:&nbsp;{_fmt(v)}" for s, v in sorted(value.items()))))
        elif value is not None:
            rows.append((label, colour_text(seat_name(value) if f.kind == "seat_onehot" else str(value))))
    return rows


def table_html(game: BatchedGame, state: BatchState, table: int = 0, viewer: int | None = None) -> str:
    """One table as an HTML table of its cards, as seat ``viewer`` may see it (``None``: public only)."""
    view = public_view(game.name)
    n = game.num_players
    obs = game.observe(state.take(np.asarray([table])), np.asarray([0 if viewer is None else viewer]))[0]
    dealer = field_value(view.dealer, obs, 0 if viewer is None else viewer, n)
    cur = int(state.current_player[table])
    status = ("finished" if bool(state.terminated[table]) else "truncated" if bool(state.truncated[table])
              else f"{seat_name(cur)} to act")
    title = f"{view.title or game.name}, {n} players" + ("" if dealer is None else f", dealer {seat_name(dealer)}")
    title += f" — {status}" + ("" if viewer is None else f" — seen by {seat_name(viewer)}")
    body = "".join(f"<tr><th>{html.escape(label)}</th><td>{cell}</td></tr>"
                   for label, cell in _rows(view, obs, viewer, n))
    if viewer is not None and viewer == cur:
        legal = ", ".join(colour_text(game.action_name(int(a))) for a in np.flatnonzero(state.legal_action_mask[table]))
        body += f"<tr><th>legal</th><td>{legal}</td></tr>"
    return (f'{STYLE}<table class="cardgym"><caption>{colour_text(title)}</caption>{body}</table>')


def log_html(log: GameLog) -> str:
    """A game log as an HTML table: the header, then one row per step (seat, action, events, rewards)."""
    h = log.header
    view = public_view(h["game"])
    options = ", ".join(f"{k}={v}" for k, v in h["options"].items())
    head = (f"{html.escape(view.title or h['game'])}, {h['num_players']} players, seed {h['seed']}, first dealer "
            f"{seat_name(h['dealer'])}<br><small>{html.escape(options)}</small><br>"
            f"<small>deck ({html.escape(h['deck_note'])}): {colour_text(' '.join(h['deck_cards']))}</small>")
    rows = []
    steps = 0
    for line in log.lines[1:]:
        kind = line["type"]
        if kind == "step":
            steps += 1
            if steps > MAX_LOG_ROWS:
                continue
            events = "<br>".join(colour_text(e["text"]) for e in line["events"])
            rewards = ", ".join(f"{seat_name(s)}&nbsp;{round(r, 3):+g}" for s, r in enumerate(line["rewards"]) if r)
            rows.append(f"<tr><td>{line['n']}</td><td>{seat_name(line['seat'])}</td>"
                        f"<td>{colour_text(line['name'])}</td><td>{events}</td><td>{rewards}</td></tr>")
        elif kind == "deal":
            events = "<br>".join(colour_text(e["text"]) for e in line["events"])
            rows.append(f'<tr><th colspan="3">deal {line["deal"] + 1}</th><td>{events}</td><td></td></tr>')
        elif kind == "deal_end":
            shown = "<br>".join(f"{seat_name(int(s))}: {cards_html(c)}" for s, c in line["shown"].items())
            rows.append(f'<tr><th colspan="3">deal {line["deal"] + 1} over</th><td>{shown}</td>'
                        f"<td>{html.escape(line['text'])}</td></tr>")
        elif kind == "result":
            returns = ", ".join(f"{seat_name(s)}&nbsp;{round(r, 3):+g}" for s, r in enumerate(line["returns"]))
            rows.append(f'<tr><th colspan="3">result ({line["steps"]} decisions)</th><td></td><td>{returns}</td></tr>')
    if steps > MAX_LOG_ROWS:
        rows.append(f'<tr><td colspan="5">… {steps - MAX_LOG_ROWS} more steps (see <code>log.text()</code>)</td></tr>')
    return (f'{STYLE}<table class="cardgym"><caption>{head}</caption>'
            "<tr><th>#</th><th>seat</th><th>action</th><th>public events</th><th>rewards</th></tr>"
            + "".join(rows) + "</table>")
