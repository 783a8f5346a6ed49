"""The web app of ``cardgym serve`` (Flask): one page that draws the table and shows the legal actions as buttons,
and three JSON routes behind it.

- ``GET /`` — the page: inline CSS and JavaScript only (nothing fetched from the network); it holds no card, it
  asks ``/state``;
- ``GET /state`` — :meth:`~training.browser_game.BrowserGame.page_state`;
- ``POST /act`` ``{"action": id, "decision": n}`` — the person's move; ``POST /new`` ``{"decision": n}`` — the next
  game once this one is over. Both answer the new state, or status 400 and ``{"error": one line}`` with the game
  unchanged (:class:`~training.browser_game.MoveError`, or a body that is not such a JSON object).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, request

from envs.drawing import TABLE_CSS
from training.browser_game import BrowserGame, MoveError

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>cardgym</title>
<style>body{font-family:"DejaVu Sans",Verdana,sans-serif;margin:10px;background:#eef0f2}
#wrap{display:flex;gap:10px;align-items:flex-start}#side{width:330px}
#moves{height:690px;overflow-y:auto;font:11px/1.3 monospace;background:#fff;border:1px solid #bbb;padding:4px}
#moves .mv{border-bottom:1px solid #eee;padding:2px 0}#moves .mv.new{background:#fff6c7}
#actions{margin:8px 0;min-height:2.2em}#actions button{margin:2px;font-size:14px;padding:3px 8px}
#error{color:#b00020;font-weight:bold;margin-left:1em}.forced{color:#b35900}.card{white-space:nowrap}
""" + TABLE_CSS + """</style></head>
<body data-state="loading"><div><b id="title">cardgym</b><span id="error"></span></div>
<div id="actions"></div>
<div id="wrap"><div id="table"></div><div id="side"><b>Moves</b> <small>(yellow: since your last move)</small>
<div id="moves"></div></div></div>
<script>
let current = null, busy = false;
const $ = (id) => document.getElementById(id);
function render(s) {
  current = s;
  $("title").textContent = s.title;
  $("table").innerHTML = s.table;
  $("moves").innerHTML = s.moves.map((m, i) => `<div class="mv${i >= s.new_from ? " new" : ""}">${m}</div>`).join("");
  $("moves").scrollTop = $("moves").scrollHeight;
  if (s.over) $("actions").innerHTML = '<b>Game over.</b> <button id="new">new game</button>';
  else if (s.legal.length) $("actions").innerHTML = "<b>Your move:</b> " + s.legal.map(
    (a) => `<button class="act" data-action="${a.action}">${a.label}</button>`).join("");
  else $("actions").textContent = "waiting for the other players…";
  document.body.dataset.state = s.over ? "over" : s.legal.length ? "your-turn" : "waiting";
}
async function call(url, body) {
  busy = true;
  try {
    const r = await fetch(url, body ? {method: "POST", headers: {"Content-Type": "application/json"},
                                       body: JSON.stringify(body)} : {});
    const data = await r.json();
    if (r.ok) { $("error").textContent = ""; render(data); } else $("error").textContent = data.error;
  } catch (e) {
    $("error").textContent = "the server does not answer (" + e + ")";
  } finally { busy = false; }
}
$("actions").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b || busy || !current) return;
  if (b.id === "new") call("/new", {decision: current.decision});
  else call("/act", {action: Number(b.dataset.action), decision: current.decision});
});
call("/state");
</script></body></html>
"""


def _refused(message: str) -> tuple[Response, int]:
    return jsonify(error=message), 400


def create_app(game: BrowserGame) -> Flask:
    """The app that serves ``game`` (already dealt) to one person."""
    app = Flask("cardgym.serve")
    app.config["MAX_CONTENT_LENGTH"] = 1 << 16  # a move is a few bytes

    def body() -> dict[str, Any]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict) or "decision" not in data:
            raise MoveError('the request must be a JSON object such as {"action": 12, "decision": 3}')
        return data

    @app.get("/")
    def page() -> Response:
        return Response(PAGE, mimetype="text/html")

    @app.get("/state")
    def state() -> Response:
        return jsonify(game.page_state())

    @app.post("/act")
    def act() -> Response | tuple[Response, int]:
        try:
            data = body()
            game.act(data.get("action"), data["decision"])
        except MoveError as e:
            return _refused(str(e))
        return jsonify(game.page_state())

    @app.post("/new")
    def new() -> Response | tuple[Response, int]:
        try:
            game.new_game(body()["decision"])
        except MoveError as e:
            return _refused(str(e))
        return jsonify(game.page_state())

    return app
