"""``cardgym replay LOG --html PAGE`` in a real browser: headless Chromium loads the self-contained page, steps
through moves with the arrow key (the page's ``#keys=N`` hook presses → N times) and the test reads what is shown;
then the drawn table of a known frame (the first golden Tripoli game after step 32, as player_2 saw it): its DOM
against the game's state read directly, its pixels at known places, and its screenshot against a committed
reference picture.

The reference, ``tests/golden/replay_tripoli_frame32.png``, is the drawn table alone (the ``.cg`` element).
Pictures are compared by 8×8 blocks: a block differs when the mean of a colour channel moves by more than
:data:`BLOCK_TOLERANCE`; at most :data:`MAX_DIFFERING` of the blocks may differ (room for a font rendered a hair
differently). One card more or less, or a highlight moved, changes far more blocks: the test shows that the next
frame, one move later, fails the comparison. After an intended change of the drawing, regenerate the reference with
``CARDGYM_UPDATE_SCREENSHOTS=1 pytest tests/test_browser_replay.py`` and look at it before committing it.

Needs Chromium: on Debian or Ubuntu ``apt-get install chromium`` (``.ci/run`` installs it); where it is missing the
tests are skipped with that instruction."""

from __future__ import annotations

import html
import io
import itertools
import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from envs.core.cards import card_str, cards_of
from envs.gamelog import read_log, replayed
from envs.replay_page import frames_of
from tests.cdp import CHROMIUM, FLAGS, SKIP_REASON, Chromium
from tests.table_helpers import hand_of, in_hand_counts, is_red_text
from training.cli import main as cli_main

GOLDEN = Path(__file__).parent / "golden"
REFERENCE = GOLDEN / "replay_tripoli_frame32.png"
FRAME, SEAT = 32, 2
BLOCK, BLOCK_TOLERANCE, MAX_DIFFERING = 8, 24.0, 0.002
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)


def shown(page, keys: int, tmp_path) -> tuple[str, str]:
    """(frame counter, move text) the browser shows after pressing → ``keys`` times."""
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / f'profile{keys}'}",
                          "--virtual-time-budget=3000", "--dump-dom", f"{page.as_uri()}#keys={keys}"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    where = re.search(r'id="where">([^<]*)<', dom)[1]
    move = re.search(r'id="move">(.*?)</div>', dom, flags=re.S)[1]
    return where, move


def plain(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split()


@needs_chromium
def test_replay_page_steps_through_the_game_in_chromium(tmp_path, capsys) -> None:
    log_path, page = tmp_path / "game.jsonl", tmp_path / "game.html"
    cli_main(["watch", "tripoli", "--agents", "heuristic", "tight", "random", "longsuit", "--seed", "3",
              "--log", str(log_path)])
    cli_main(["replay", str(log_path), "--html", str(page), "--seat", "2"])
    capsys.readouterr()
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"?https?:|url\(|@import", text)  # self-contained: nothing from the network
    frames = frames_of(read_log(log_path)[0], 2)
    for keys in (0, 3, len(frames) + 5):  # the last press goes past the end: the page stops at the last frame
        k = min(keys, len(frames) - 1)
        where, move = shown(page, keys, tmp_path)
        assert where == f"frame {k + 1} of {len(frames)}"
        assert plain(move) == plain(frames[k]["move"])
    assert "select (hidden)" in text and "(forced)" in text  # others' secret choices hidden; forced moves listed


# ----- the drawn table of a known frame --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def known_frame(tmp_path_factory) -> dict:
    """The golden Tripoli game's page as player_2 saw it, open at frame :data:`FRAME` in Chromium: its DOM, a
    screenshot of the table, the next frame's screenshot, and the game's state at that frame."""
    folder = tmp_path_factory.mktemp("known_frame")
    log = read_log(GOLDEN / "tripoli.jsonl")[0]
    log_path, page = folder / "game.jsonl", folder / "game.html"
    log_path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in log.lines), encoding="utf-8")
    cli_main(["replay", str(log_path), "--html", str(page), "--seat", str(SEAT)])
    game, state, _ = next(itertools.islice(replayed(log), FRAME, None))  # the state after step FRAME
    with Chromium(folder / "profile", 1100, 1100) as browser:
        browser.open(f"{page.as_uri()}#keys={FRAME}")
        dom = browser.evaluate(DOM_OF_TABLE)
        box = browser.evaluate("JSON.stringify(document.querySelector('.cg').getBoundingClientRect())")
        picture = table_picture(browser.screenshot(), json.loads(box))
        browser.evaluate("document.getElementById('next').click()")
        following = table_picture(browser.screenshot(), json.loads(box))
    return {"dom": dom, "picture": picture, "next": following, "game": game, "state": state}


DOM_OF_TABLE = """(() => {
  const cards = (el, sel) => [...el.querySelectorAll(sel)].map((c) => c.dataset.card);
  const box = (el) => { const r = el.getBoundingClientRect(); const t = document.querySelector('.cg')
    .getBoundingClientRect(); return [r.left - t.left, r.top - t.top, r.width, r.height]; };
  return {
    seats: [...document.querySelectorAll('.cg .seat')].map((e) => ({
      seat: Number(e.dataset.seat), count: Number(e.dataset.count),
      chips: e.querySelector('.num[data-name="chips"] .chip').textContent,
      hand: cards(e, '[data-field="hand"] .pc[data-card]'), cards: cards(e, '.pc[data-card]'),
      backs: e.querySelectorAll('[data-field="hand"] .pc.back').length,
      last: e.classList.contains('last'), forced: e.querySelectorAll('.said.forced').length,
      toact: e.classList.contains('toact'), box: box(e)})),
    spaces: [...document.querySelectorAll('.cg .space')].map((e) => [e.dataset.space,
      e.querySelector('.chip').textContent]),
    red: [...document.querySelectorAll('.cg .dock .big .pc.red')].map(box),
    black: [...document.querySelectorAll('.cg .dock .big .pc.black')].map(box),
    backs: [...document.querySelectorAll('.cg .seat:not(.dock) .pc.back')].map(box),
    fresh: [...document.querySelectorAll('.cg .pc.new')].map(box),
  };
})()"""


def table_picture(png: bytes, box: dict) -> np.ndarray:
    """The drawn table cut out of a screenshot, as an RGB array."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    left, top = round(box["left"]), round(box["top"])
    return np.asarray(image.crop((left, top, left + round(box["width"]), top + round(box["height"]))))


def differing_blocks(a: np.ndarray, b: np.ndarray) -> float:
    """The share of 8×8 blocks whose mean colour differs by more than :data:`BLOCK_TOLERANCE` in some channel (1.0
    for pictures of different sizes)."""
    if a.shape != b.shape:
        return 1.0
    h, w = (a.shape[0] // BLOCK) * BLOCK, (a.shape[1] // BLOCK) * BLOCK

    def means(x: np.ndarray) -> np.ndarray:
        return x[:h, :w].astype(float).reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK, 3).mean(axis=(1, 3))

    return float((np.abs(means(a) - means(b)).max(axis=2) > BLOCK_TOLERANCE).mean())


@needs_chromium
def test_known_frame_dom_matches_the_state(known_frame) -> None:
    dom, game, state = known_frame["dom"], known_frame["game"], known_frame["state"]
    seats = {s["seat"]: s for s in dom["seats"]}
    assert sorted(seats) == [0, 1, 2, 3]
    assert [seats[s]["count"] for s in range(4)] == in_hand_counts(game, state)
    assert [float(seats[s]["chips"]) for s in range(4)] == state.balance[0].tolist()
    assert [float(chips) for _, chips in dom["spaces"]] == state.layout[0].tolist()
    assert sorted(seats[SEAT]["hand"]) == hand_of(game, state, SEAT)  # the viewer's hand, face up
    for s in range(4):
        public = {card_str(c, True) for c in cards_of(state.played_by[0, s]) + cards_of(state.shown[0, s])}
        own = set(hand_of(game, state, s)) | {card_str(c, True) for c in cards_of(state.selected[0, s])}
        assert set(seats[s]["cards"]) == public | (own if s == SEAT else set())  # nothing of another hand
        assert seats[s]["backs"] == (0 if s == SEAT else min(in_hand_counts(game, state)[s], 10))
    step = read_log(GOLDEN / "tripoli.jsonl")[0].steps[FRAME - 1]
    assert [s for s in range(4) if seats[s]["last"]] == [step["seat"]]  # the last move's seat is highlighted
    forced = {m["seat"] for m in step["forced"]}
    assert sum(seats[s]["forced"] for s in range(4)) == len(step["forced"]) and forced
    assert [s for s in range(4) if seats[s]["toact"]] == [int(state.current_player[0])]
    assert len(dom["fresh"]) == sum(len(e.get("added", [])) for e in step["events"])


@needs_chromium
def test_known_frame_pixels(known_frame) -> None:
    """The screenshot shows what the DOM says where it says it: red and black suits on the viewer's cards, backs
    on the other seats, the felt green in the middle and the new cards outlined in yellow."""
    picture, dom = known_frame["picture"], known_frame["dom"]

    def region(box: list[float]) -> np.ndarray:
        x, y, w, h = (round(v) for v in box)
        return picture[y : y + h, x : x + w].astype(int)

    assert dom["red"] and dom["black"] and dom["backs"] and dom["fresh"]
    for box in dom["red"]:
        assert is_red_text(region(box)).sum() > 40  # a red rank and suit
    for box in dom["black"]:
        cut = region(box)
        assert not is_red_text(cut).any() and (cut.max(axis=2) < 60).sum() > 40  # black ink, no red
    for box in dom["backs"]:
        cut = region(box)
        assert ((cut[..., 2] > 150) & (cut[..., 0] < 100)).sum() > 0.3 * cut.shape[0] * cut.shape[1] / 4  # blue
    centre = picture[picture.shape[0] * 3 // 8, picture.shape[1] // 2 - 200].astype(int)  # the felt, left of the board
    assert centre[1] > centre[0] + 40 and centre[1] > centre[2] + 40  # green
    for box in dom["fresh"]:
        x, y, w, h = (round(v) for v in box)
        ring = picture[y - 2, x + w // 2].astype(int)  # the outline just above the card
        assert ring[0] > 200 and ring[1] > 170 and ring[2] < 80, ring  # yellow


@needs_chromium
def test_known_frame_screenshot_matches_the_reference(known_frame, tmp_path) -> None:
    picture = known_frame["picture"]
    if os.environ.get("CARDGYM_UPDATE_SCREENSHOTS") == "1":
        Image.fromarray(picture).save(REFERENCE, optimize=True)
    reference = np.asarray(Image.open(REFERENCE).convert("RGB"))
    differing = differing_blocks(picture, reference)
    if differing > MAX_DIFFERING:
        Image.fromarray(picture).save(tmp_path / "actual.png")
    assert differing <= MAX_DIFFERING, f"{differing:.2%} of the blocks differ (see {tmp_path / 'actual.png'})"
    assert differing_blocks(known_frame["next"], reference) > 5 * MAX_DIFFERING  # one move later: not the same
