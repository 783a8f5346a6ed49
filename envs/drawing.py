"""A :class:`~envs.scene.Scene` drawn as HTML and CSS: the felt, the seats round it with their chips and cards, the
viewer's hand below, the board of chips and the piles in the middle, the last move highlighted.

Self-contained: :data:`TABLE_CSS` is the whole style (no image, font or script from anywhere); a card is a
``<span class="pc red" data-card="Q♥">`` drawn by CSS, a card lying face down a ``<span class="pc back">``. The
viewer's seat (or, for the public view, seat 0) is at the bottom and the others follow clockwise, so the seat to the
viewer's left is drawn on the left (C6). Only what the scene holds is drawn, so the picture shows nothing hidden
from the viewer.
"""

from __future__ import annotations

import html
import math

from envs.core.cards import card_str, suit_of
from envs.gamelog import seat_name
from envs.narration import Highlight
from envs.scene import CardRow, Scene, SeatScene

WIDTH, HEIGHT, DOCK = 1040, 600, 190
"""The table's size in pixels and the height of the viewer's place below it."""
CENTRE_X, CENTRE_Y, RING_X, RING_Y = 520, 300, 420, 222
"""The ellipse the seats sit on."""
MAX_BACKS = 10
"""Backs drawn for a hidden hand (the count is written beside them)."""
MANY = 16
"""A row of more cards than this is drawn tighter (Le triolet's burned cards, a hand that took the pile)."""

TABLE_CSS = f"""
.cg{{position:relative;width:{WIDTH}px;height:{HEIGHT + DOCK}px;background:#23303a;color:#eee;
  font:12px/1.25 "DejaVu Sans",Verdana,sans-serif;overflow:hidden;border-radius:8px}}
.cg.public{{height:{HEIGHT}px}}
.cg .felt{{position:absolute;left:185px;top:118px;width:670px;height:364px;border-radius:50%;
  background:radial-gradient(ellipse at center,#2f8a4b 0%,#1f6b38 70%,#185a2e 100%);border:10px solid #6b4226;
  box-shadow:inset 0 0 30px #0008}}
.cg .middle{{position:absolute;left:240px;top:150px;width:560px;height:300px;display:flex;flex-direction:column;
  align-items:center;justify-content:center;gap:6px;text-align:center}}
.cg .status{{position:absolute;left:8px;top:6px;font-size:13px}}
.cg .status b{{color:#ffd400}}
.cg .notes{{color:#d9f2df;font-size:12px}}
.cg .board{{display:grid;grid-template-columns:repeat(5,64px);gap:5px;justify-content:center}}
.cg .space{{background:#1b5530;border:1px solid #9fd3ad;border-radius:6px;padding:2px;height:44px}}
.cg .space .name{{display:block;font-weight:bold;color:#fff}}
.cg .space.red .name{{color:#ff8f80}}
.cg .space.changed{{border:2px solid #ffd400;background:#3b6d2a}}
.cg .chip{{display:inline-block;min-width:20px;height:20px;line-height:20px;border-radius:50%;background:#d4a017;
  color:#222;font-weight:bold;font-size:11px;border:2px dashed #fff;padding:0 2px;text-align:center}}
.cg .chip.none{{background:#555;color:#bbb}}
.cg .piles{{display:flex;gap:18px;justify-content:center;align-items:flex-start}}
.cg .pile .label,.cg .row .label{{display:block;color:#cfe;font-size:11px}}
.cg .seat{{position:absolute;width:184px;transform:translate(-50%,-50%);background:#15202880;border:2px solid #456;
  border-radius:8px;padding:3px 5px;box-sizing:border-box}}
.cg .seat.toact{{border-color:#5fd35f;box-shadow:0 0 8px #5fd35f}}
.cg .seat.last{{border-color:#ffd400;box-shadow:0 0 12px #ffd400}}
.cg .seat .who{{font-weight:bold}}
.cg .seat .dealer{{display:inline-block;background:#fff;color:#000;border-radius:50%;width:15px;height:15px;
  text-align:center;font-size:10px;line-height:15px;margin-left:3px}}
.cg .tag{{display:inline-block;background:#7a2e2e;border-radius:6px;padding:0 4px;margin:1px 2px 0 0;font-size:10px}}
.cg .num{{margin-right:8px;white-space:nowrap}}
.cg .said{{background:#ffd400;color:#111;border-radius:6px;padding:1px 4px;margin-top:2px;font-size:11px}}
.cg .said.forced{{background:#f0a35e}}
.cg .said .card{{color:inherit!important;font-weight:bold}}
.cg .dock{{position:absolute;left:0;top:{HEIGHT}px;width:{WIDTH}px;height:{DOCK}px;background:#1a252d;
  border-top:2px solid #456;padding:6px 10px;box-sizing:border-box;transform:none}}
.cg .dock.toact{{border-top-color:#5fd35f}}
.cg .dock.last{{border-top-color:#ffd400}}
.cg .rows{{display:flex;flex-wrap:wrap;gap:2px 10px}}
.cg .pc{{display:inline-block;position:relative;width:22px;height:31px;border-radius:3px;background:#fdfdf8;
  border:1px solid #777;margin-right:-9px;vertical-align:top;box-shadow:1px 1px 2px #0006;box-sizing:border-box}}
.cg .fan .pc:last-child{{margin-right:0}}
.cg .pc b{{position:absolute;left:1px;top:1px;font-size:10px;line-height:10px;letter-spacing:-1px}}
.cg .pc i{{position:absolute;left:1px;top:12px;font-style:normal;font-size:11px;line-height:11px}}
.cg .pc.red{{color:#c8102e}}
.cg .pc.black{{color:#111}}
.cg .pc.back{{background:repeating-linear-gradient(45deg,#2c4f9e 0 3px,#4169c4 3px 6px);border:2px solid #eee;
  margin-right:-12px}}
.cg .pc.new{{outline:3px solid #ffd400;z-index:2}}
.cg .big .pc{{width:46px;height:66px;margin-right:5px}}
.cg .big .pc b{{font-size:17px;left:4px;top:3px}}
.cg .big .pc i{{font-size:26px;line-height:26px;left:auto;top:auto;right:4px;bottom:3px}}
.cg .big.many .pc{{margin-right:-14px}}
.cg .fan.many .pc{{margin-right:-15px}}
.cg .count{{font-size:11px;color:#cfe;margin-left:4px}}
.cg .legal{{margin-top:4px;color:#cfe}}
"""


def card_face(card: int, new: bool = False) -> str:
    """One card face up: its rank and suit, ♦♥ red and ♣♠ black (``new``: laid by the last move)."""
    name = card_str(card, True)
    colour = "red" if suit_of(card) in (1, 2) else "black"
    return (f'<span class="pc {colour}{" new" if new else ""}" data-card="{name}" title="{name}"><b>{name[:-1]}</b>'
            f"<i>{name[-1]}</i></span>")


def backs(k: int) -> str:
    """``k`` cards face down, at most :data:`MAX_BACKS` drawn."""
    return '<span class="pc back"></span>' * min(k, MAX_BACKS)


def _row(row: CardRow, seat: int | None, last: Highlight) -> str:
    faces = "".join(card_face(c, (row.field, seat, c) in last.new) for c in row.cards)
    count = f'<span class="count">{row.backs}</span>' if row.backs > MAX_BACKS or row.field == "stock" else ""
    note = f'<span class="count">{html.escape(row.note)}</span>' if row.note else ""
    kind = "pile" if seat is None else "row"
    many = " many" if len(row.cards) > MANY else ""
    return (f'<span class="{kind}" data-field="{row.field}"><span class="label">{html.escape(row.label)}{note}</span>'
            f'<span class="fan{many}">{backs(row.backs)}{faces}</span>{count}</span>')


def _seat_body(s: SeatScene, last: Highlight, legal: list[str] | None) -> str:
    badges = '<span class="dealer" title="dealer">D</span>' if s.dealer else ""
    numbers = "".join(f'<span class="num" data-name="{html.escape(label)}">{html.escape(label)} '
                      f'<span class="chip">{x:g}</span></span>'
                      for k, (label, x) in enumerate(s.numbers) if k == 0 or x)
    tags = "".join(f'<span class="tag">{html.escape(t)}</span>' for t in s.tags)
    if s.hand is not None:
        many = " many" if len(s.hand) > MANY else ""
        hand = (f'<span class="row" data-field="hand"><span class="label">your hand ({len(s.hand)})</span>'
                f'<span class="fan big{many}">{"".join(card_face(c) for c in s.hand)}</span></span>')
    else:
        hand = (f'<span class="row" data-field="hand"><span class="fan">{backs(s.hand_count)}</span>'
                f'<span class="count">{s.hand_count} in hand</span></span>')
    rows = "".join(_row(r, s.seat, last) for r in s.rows if r.cards or r.backs)
    said = (f'<div class="said">{last.move}</div>' if last.actor == s.seat else "") + "".join(
        f'<div class="said forced">(forced) {name}</div>' for name in last.forced.get(s.seat, []))
    options = (f'<div class="legal">your options: {", ".join(legal)}</div>' if legal and s.you and s.to_act else "")
    you = " (you)" if s.you else ""
    return (f'<div class="who">{seat_name(s.seat)}{you}{badges} {tags}</div><div>{numbers}</div>{hand}'
            f'<div class="rows">{rows}</div>{said}{options}')


def _position(rel: int, n: int) -> tuple[float, float]:
    """Where relative seat ``rel`` (places to the bottom seat's left) sits: clockwise from the bottom."""
    phi = 2 * math.pi * rel / n
    return CENTRE_X - RING_X * math.sin(phi), CENTRE_Y + RING_Y * math.cos(phi)


def _board(sc: Scene, last: Highlight) -> str:
    cells = []
    for space in sc.board:
        red = " red" if any(sym in space.label for sym in "♦♥") else ""
        changed = " changed" if (space.field, space.name) in last.changed else ""
        chip = f'<span class="chip{" none" if not space.chips else ""}">{space.chips:g}</span>'
        cells.append(f'<div class="space{red}{changed}" data-space="{html.escape(space.name)}">'
                     f'<span class="name">{html.escape(space.label)}</span>{chip}</div>')
    return f'<div class="board">{"".join(cells)}</div>' if cells else ""


def draw(sc: Scene, last: Highlight | None = None, legal: list[str] | None = None) -> str:
    """The table of ``sc`` as one ``<div class="cg">`` (style: :data:`TABLE_CSS`); ``last`` marks the last move,
    ``legal`` (HTML names) lists the viewer's options when it is the viewer's turn."""
    last = last or Highlight()
    n = len(sc.seats)
    bottom = 0 if sc.viewer is None else sc.viewer
    parts = []
    for s in sc.seats:
        cls = "seat" + (" toact" if s.to_act else "") + (" last" if s.seat == last.actor else "")
        attrs = f'data-seat="{s.seat}" data-count="{s.hand_count}"'
        if s.you:
            parts.append(f'<div class="{cls} dock" {attrs}>{_seat_body(s, last, legal)}</div>')
            continue
        x, y = _position((s.seat - bottom) % n, n)
        parts.append(f'<div class="{cls}" {attrs} style="left:{x:.0f}px;top:{y:.0f}px">'
                     f"{_seat_body(s, last, legal)}</div>")
    notes = " · ".join(html.escape(note) for note in sc.notes)
    piles = "".join(_row(r, None, last) for r in sc.centre)
    public = sc.viewer is None
    who = "public view" if public else f"seen by {seat_name(sc.viewer)}"
    return (f'<div class="cg{" public" if public else ""}" data-game="{sc.game}" '
            f'data-viewer="{"public" if public else sc.viewer}">'
            f'<div class="status">{html.escape(sc.title)}, {n} players — <b>{html.escape(sc.status)}</b> — {who}'
            f'</div><div class="felt"></div><div class="middle"><div class="notes">{notes}</div>{_board(sc, last)}'
            f'<div class="piles">{piles}</div></div>{"".join(parts)}</div>')
