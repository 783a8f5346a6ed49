"""A game log as one self-contained web page that steps through the game (``cardgym replay LOG --html PAGE``).

The page holds one frame per moment of the game — the deal, then every decision — each frame being the table drawn
as the chosen seat saw it then (:func:`envs.scene.scene` drawn by :func:`envs.drawing.draw`: the seats with their
chips and cards, their hand, the public cards, the board of chips; ``seat=None``: public information only) with the
last move highlighted, and the move that led to it, forced moves included (C8), with its public events and rewards
(:func:`envs.narration.line_html`). No server, no script, image or font from the network: the frames are embedded
and a few lines of JavaScript show one at a time (buttons, and the arrow keys ← → Home End). The frames are computed
by replaying the log (seed or stacked deck, dealer, options, then every logged action) through
:func:`envs.gamelog.replayed`, which checks every line on the way, so the page shows exactly what the game did, and
a log the game does not reproduce is refused with the :class:`~envs.gamelog.VerifyError` that ``cardgym replay
--verify`` reports, naming the same line.
"""

from __future__ import annotations

import html
import json
from typing import Any

from envs.drawing import TABLE_CSS, draw
from envs.gamelog import GameLog, public_view, replayed, seat_name
from envs.html import colour_text
from envs.narration import highlight, line_html
from envs.scene import scene

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:"DejaVu Sans",Verdana,sans-serif;margin:12px;background:#eef0f2}}#move{{font-family:monospace;
white-space:pre-wrap;margin:.5em 0;height:8.4em;overflow-y:auto}}button{{margin-right:.3em}}.forced{{color:#b35900}}
.card{{white-space:nowrap}}{css}</style></head>
<body><h3>{title}</h3>
<div><button id="first">« first</button><button id="prev">◀ previous</button><button id="next">next ▶</button>
<button id="last">last »</button> <span id="where"></span> <small>(← → Home End)</small></div>
<div id="move"></div><div id="table"></div>
<script>
const frames = {frames};
let k = 0;
function show(i) {{
  k = Math.max(0, Math.min(frames.length - 1, i));
  document.getElementById("move").innerHTML = frames[k].move;
  document.getElementById("table").innerHTML = frames[k].table;
  document.getElementById("where").textContent = "frame " + (k + 1) + " of " + frames.length;
}}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(k - 1);
document.getElementById("next").onclick = () => show(k + 1);
document.getElementById("last").onclick = () => show(frames.length - 1);
document.addEventListener("keydown", (e) => {{
  const to = {{ArrowRight: k + 1, ArrowLeft: k - 1, Home: 0, End: frames.length - 1}}[e.key];
  if (to !== undefined) {{ show(to); e.preventDefault(); }}
}});
show(0);
// A test hook: page.html#keys=N presses the right arrow N times after loading (the browser test uses it).
const presses = Number((location.hash.match(/keys=(\\d+)/) || [0, 0])[1]);
for (let i = 0; i < presses; i++) document.dispatchEvent(new KeyboardEvent("keydown", {{key: "ArrowRight"}}));
</script></body></html>
"""


def frames_of(log: GameLog, seat: int | None) -> list[dict[str, str]]:
    """The page's frames: ``{"move": html, "table": html}`` for the deal and after every logged decision (a log that
    stops early: as far as it goes). A frame's move is the step's line and the lines it led to (a deal's end, the
    next deal, the result). Raises :class:`~envs.gamelog.VerifyError` at the first line the replayed game does not
    reproduce."""
    view = public_view(log.header["game"])
    after: dict[int | None, list[dict[str, Any]]] = {}  # step number (None: the deal) → its line and those it led to
    step: int | None = None
    for line in log.lines[1:]:
        step = line["n"] if line["type"] == "step" else step
        after.setdefault(step, []).append(line)
    frames = []
    for game, state, line in replayed(log):
        lines = after.get(None if line is None else line["n"], [])
        move = "<br>".join(line_html(a, view, seat) for a in lines) or "The deal."
        mark = highlight(lines[0] if lines else None, view, seat)
        legal = None
        if seat is not None and seat == int(state.current_player[0]) and not bool(state.done[0]):
            legal = [colour_text(game.action_name(int(a))) for a in state.legal_action_mask[0].nonzero()[0]]
        frames.append({"move": move, "table": draw(scene(game, state, seat), mark, legal)})
    return frames


def replay_page(log: GameLog, seat: int | None = 0) -> str:
    """The self-contained page of ``log`` as seat ``seat`` saw the game (``None``: public information only)."""
    h = log.header
    who = "public view" if seat is None else f"as {seat_name(seat)} saw it"
    title = html.escape(f"{public_view(h['game']).title or h['game']}, {h['num_players']} players, seed {h['seed']} "
                        f"— {who}")
    frames = json.dumps(frames_of(log, seat), ensure_ascii=False).replace("</", "<\\/")
    return PAGE.format(title=title, frames=frames, css=TABLE_CSS)
