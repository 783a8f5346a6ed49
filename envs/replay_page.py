"""A game log as one self-contained web page that steps through the game (``cardgym replay LOG --html PAGE``).

The page holds one frame per moment of the game — the deal, then every decision — each frame being the table as the
chosen seat saw it then (:func:`envs.html.table_html`: their hand, the public cards, chips; ``seat=None``: public
information only) and the move that led to it, forced moves included (C8), with its public events and rewards. No
server, no script or font from the network: the frames are embedded and a few lines of JavaScript show one at a time
(buttons, and the arrow keys ← → Home End). The frames are computed by replaying the log (seed or stacked deck,
dealer, options, then every logged action) through :func:`envs.gamelog.replayed`, which checks every line on the
way, so the page shows exactly what the game did, and a log the game does not reproduce is refused with the
:class:`~envs.gamelog.VerifyError` that ``cardgym replay --verify`` reports, naming the same line.
"""

from __future__ import annotations

import html
import json
from typing import Any

from envs.gamelog import GameLog, public_view, replayed, seat_name
from envs.html import colour_text, table_html

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:1em}}#move{{font-family:monospace;white-space:pre-wrap;margin:.5em 0;
min-height:4em}}button{{margin-right:.3em}}</style></head>
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
    stops early: as far as it goes). Raises :class:`~envs.gamelog.VerifyError` at the first line the replayed game
    does not reproduce."""
    view = public_view(log.header["game"])

    def name(move: dict[str, Any]) -> str:
        secret = move["secret"] and move["seat"] != seat
        return colour_text(view.public_action_name(move["name"]) if secret else move["name"])

    def forced(moves: list[dict[str, Any]]) -> str:
        return "".join(f"<br>&nbsp;&nbsp;then {seat_name(m['seat'])} (forced): {name(m)}" for m in moves)

    frames = []
    for game, state, line in replayed(log):
        if line is None:  # the deal (a log cut off after its header has no 'deal' line)
            deal = next((d for d in log.lines if d["type"] == "deal"), {"forced": []})
            frames.append({"move": "The deal." + forced(deal["forced"]), "table": table_html(game, state, 0, seat)})
            continue
        events = "".join(f"<br>&nbsp;&nbsp;&nbsp;&nbsp;{colour_text(e['text'])}" for e in line["events"])
        paid = ", ".join(f"{seat_name(s)} {round(r, 3):+g}" for s, r in enumerate(line["rewards"]) if r)
        move = (f"{line['n']}. {seat_name(line['seat'])}: {name(line)}" + forced(line["forced"]) + events
                + (f"<br>&nbsp;&nbsp;&nbsp;&nbsp;rewards: {html.escape(paid)}" if paid else ""))
        frames.append({"move": move, "table": table_html(game, state, 0, seat)})
    return frames


def replay_page(log: GameLog, seat: int | None = 0) -> str:
    """The self-contained page of ``log`` as seat ``seat`` saw the game (``None``: public information only)."""
    h = log.header
    who = "public view" if seat is None else f"as {seat_name(seat)} saw it"
    title = html.escape(f"{public_view(h['game']).title or h['game']}, {h['num_players']} players, seed {h['seed']} "
                        f"— {who}")
    frames = json.dumps(frames_of(log, seat), ensure_ascii=False).replace("</", "<\\/")
    return PAGE.format(title=title, frames=frames)
