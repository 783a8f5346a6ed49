"""The documentation in docs/ cannot rot unnoticed: its code pointers, links, rule ids, option tables, example agent
and worked examples are checked against the code.

- Every pointer written `` `path.py: Symbol.attr` `` (or `` `path.py` ``) names an existing file and a symbol defined
  there (a function, class or assignment at module level; then a method, property or field of that class).
- A pointer into envs/, agents/ or training/ names code that runs: the symbol is reached by a chain of uses from the
  entry points (the ``cardgym`` command, the registries, the PettingZoo modules; :mod:`tests.reachable`), so a
  function or a constant that nothing calls or reads (a copy the kernels do not use) fails; and the attribute of
  ``Symbol.attr`` is read somewhere in that code. A pointer into envs/ in a ``→`` list (the code that implements a
  rule) must be reached from the engine alone (the games of the registry and the PettingZoo modules), not only
  through an agent or the command line. Only a pointer in the text may name a public method of a game class that
  the code does not call: users call it.
- Every relative link of docs/*.md leads to an existing file (and heading).
- docs/<game>.md defines its rule ids (a list item opening with the bold id) once each, in order, without gaps;
  every rule id that the code cites (envs/, agents/, training/) is defined in docs/.
- The options table of each game lists every field of the game's config class with its default.
- docs/agents.md shows docs/my_agent.py verbatim, and that agent plays through ``cardgym eval``.
- The worked examples of docs/tripoli.md and docs/flipflop.md play out in the engine as the text says.
- The README stays a five-minute read (at most 250 lines of at most 120 characters) whose links lead somewhere, and
  no code cites a training run by its id: run ids live in docs/experiments.md, code states the reason in words.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
import textwrap
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from agents.registry import AgentSpecError, make_agent
from envs.core.cards import RANK_LETTERS, SUIT_LETTERS, SUIT_SYMBOLS
from envs.core.game import BatchedGame
from envs.registry import GAMES, VERSIONS, game_class, make_game
from envs.tripoli.observation import OFFSETS, SCALARS
from tests.reachable import MODULE_CODE, Project
from training.cli import main as cardgym

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
RULE_PAGES = {"tripoli.md": "T", "triolet.md": "L", "flipflop.md": "F", "common.md": "C"}
"""Page → the prefix of the rule ids it defines."""
LEAST_RULES = {"T": 30, "L": 17, "F": 28, "C": 13}
"""The rules as of version 1 have at least this many ids per prefix; a page that stops short lost some."""
POINTER = re.compile(r"`((?:envs|agents|training|tests|benchmarks|docs)/[\w/]+\.py)(?:: ([\w.]+))?`")
ARROW_LIST = re.compile(r"→(?:\s*`[^`]+`,?)+")
"""A ``→`` list: the code that implements the rule or paragraph before it."""
POINTER_START = re.compile(r"`(?:envs|agents|training|tests|benchmarks|docs)/")
LINK = re.compile(r"\]\(([^)\s]+)\)")
RULE_DEF = re.compile(r"^- \*\*([A-Z])(\d+)\b", re.MULTILINE)
RULE_CITE = re.compile(r"\b([CTLF])(\d{1,2})\b")
TO_CALL = OFFSETS["scalars"][0] + SCALARS.index("to_call")
CODE = ("envs", "agents", "training")
"""The packages whose pointers must name code that runs."""
ENGINE_MODULES = ("envs.registry", *(f"envs.{g}_v{v}" for g, v in VERSIONS.items()))
"""The engine's modules whose public names are what a user calls: the registry of the games and the PettingZoo
modules."""


def text(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


@cache
def defined_names(path: Path) -> dict[str, set[str]]:
    """``{"": module-level names, "Class": names defined in the class body}`` of a Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def names(body: list[ast.stmt]) -> set[str]:
        out: set[str] = set()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    out |= {t.id for t in ast.walk(target) if isinstance(t, ast.Name)}
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
        return out

    table = {"": names(tree.body)}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            table[node.name] = names(node.body)
    return table


def pointers() -> list[tuple[str, str, str | None]]:
    return [(page.name, m[1], m[2]) for page in PAGES for m in POINTER.finditer(page.read_text(encoding="utf-8"))]


def code_pointers() -> list[tuple[str, str, str, bool]]:
    """(page, path, symbol, whether in a ``→`` list) of the pointers with a symbol into :data:`CODE`."""
    out = []
    for page in PAGES:
        body = page.read_text(encoding="utf-8")
        lists = [m.span() for m in ARROW_LIST.finditer(body)]
        for m in POINTER.finditer(body):
            if m[2] and m[1].startswith(tuple(f"{c}/" for c in CODE)):
                out.append((page.name, m[1], m[2], any(a <= m.start() < b for a, b in lists)))
    return out


def entry_points(project: Project, engine: bool) -> list[tuple[str, str]]:
    """The engine's: the ``envs`` package (it registers the PettingZoo environments) and the public names of
    :data:`ENGINE_MODULES`; then, unless ``engine``, the ``cardgym`` command (pyproject's ``[project.scripts]``) and
    the agents' registry."""
    roots = [("envs", MODULE_CODE)]
    for module in ENGINE_MODULES + (() if engine else ("agents.registry",)):
        roots += sorted(project.public(module))
    return roots + ([] if engine else [("training.cli", "main")])


@cache
def running_code() -> tuple[Project, set[tuple[str, str]], set[tuple[str, str]], set[str]]:
    """The project's code, its nodes reached from the engine's entry points, those reached from all of them, and the
    attribute names the latter read."""
    project = Project(ROOT, CODE)
    live = project.reachable(entry_points(project, engine=False))
    engine = project.reachable(entry_points(project, engine=True))
    return project, engine, live, set().union(*(project.attributes(*node) for node in live))


# ----- pointers and links ------------------------------------------------------------------------------------------
def test_docs_exist_and_have_pointers():
    assert {p.name for p in PAGES} >= {"README.md", "common.md", "tripoli.md", "triolet.md", "flipflop.md",
                                       "agents.md"}
    assert len(pointers()) > 100
    listed = [p for p in code_pointers() if p[3]]
    assert len(listed) > 100 and ("common.md", "envs/core/cards.py", "is_red", True) in listed


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_every_code_path_is_a_well_formed_pointer(page: str):
    """A path in backticks is `path.py` or `path.py: Symbol` on one line (else the checks below would skip it)."""
    body = text(page)
    bad = [body[m.start():m.start() + 60] for m in POINTER_START.finditer(body) if not POINTER.match(body, m.start())]
    assert not bad, f"{page}: malformed pointers {bad}"


@pytest.mark.parametrize(("page", "path", "symbol"), pointers())
def test_pointer_names_an_existing_symbol(page: str, path: str, symbol: str | None):
    file = ROOT / path
    assert file.is_file(), f"{page}: `{path}` does not exist"
    if symbol is None:
        return
    table = defined_names(file)
    head, *rest = symbol.split(".")
    assert head in table[""], f"{page}: `{path}: {symbol}`: {head} is not defined at module level of {path}"
    if rest:
        assert len(rest) == 1 and head in table, f"{page}: `{path}: {symbol}`: {head} is not a class of {path}"
        assert rest[0] in table[head], f"{page}: `{path}: {symbol}`: class {head} defines no {rest[0]}"


@pytest.mark.parametrize(("page", "path", "symbol", "listed"), code_pointers())
def test_pointer_names_code_that_runs(page: str, path: str, symbol: str, listed: bool):
    """The code a pointer names does the work: the game's code calls or reads it (a function the kernels inline by
    hand, or a copy of a constant nobody imports, is not the implementation of anything)."""
    project, engine, live, attributes = running_code()
    module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    head, _, attr = symbol.partition(".")
    node = project.resolve(module, head)
    assert node in live, (
        f"{page}: `{path}: {symbol}`: nothing reached from the entry points uses {head}; point at the code that does "
        "the work, or make that code call it")
    assert node in engine or not (listed and path.startswith("envs/")), (
        f"{page}: `{path}: {symbol}`: only agents or the command line use {head}, not the engine")
    if attr and attr not in attributes:
        cls = getattr(importlib.import_module(module), head)
        api = issubclass(cls, BatchedGame) and not attr.startswith("_") and callable(getattr(cls, attr))
        assert api and not listed, f"{page}: `{path}: {symbol}`: no code reached from the entry points reads .{attr}"


def test_the_use_check_can_fail(tmp_path: Path):
    """A constant defined twice, the kernels reading their own copy, and a colour function nobody calls (C2 before
    issue 29): the check reaches the kernels' copy and what the kernels call, not the rest."""
    files = {
        "game/__init__.py": "",
        "game/cards.py": """
            def is_red(suit):
                return suit in (1, 2)

            def suit_of(card):
                return card // 13
            """,
        "game/state.py": """
            SUIT_IS_RED = (False, True, True, False)
            NUM_SPACES = 9
            """,
        "game/kernels.py": """
            from game.cards import suit_of
            from game.state import NUM_SPACES
            SUIT_IS_RED = (False, True, True, False)

            def lead(card):
                return SUIT_IS_RED[suit_of(card)] and NUM_SPACES

            def partner(card):
                return 3 - suit_of(card)
            """,
        "game/core.py": """
            from game import kernels as K

            class Game:
                def step(self, card):
                    return K.lead(card)
            """,
        "game/registry.py": 'GAMES = {"game": "game.core:Game"}',
    }
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(body))
    project = Project(tmp_path, ["game"])
    live = project.reachable([("game.registry", "GAMES")])
    assert {("game.core", "Game"), ("game.kernels", "lead"), ("game.kernels", "SUIT_IS_RED"), ("game.cards", "suit_of"),
            ("game.state", "NUM_SPACES")} <= live
    assert project.unused([("game.registry", "GAMES")]) == [
        ("game.cards", "is_red"), ("game.kernels", "partner"), ("game.state", "SUIT_IS_RED")]


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of a markdown page (lower case, punctuation dropped, spaces → -)."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_relative_links_lead_to_files_and_headings():
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            path = (DOCS / file).resolve() if file else page
            assert path.exists(), f"{page.name}: link ({target}) leads nowhere"
            if anchor:
                assert anchor in anchors(path), f"{page.name}: link ({target}): no such heading in {path.name}"


def test_the_pointer_check_can_fail():
    table = defined_names(ROOT / "envs/tripoli/core.py")
    assert "_play" in table["TripoliGame"] and "_stop" not in table["TripoliGame"]
    assert "TripoliGame" in table[""] and "NoSuchClass" not in table[""]
    assert "play_run" in defined_names(ROOT / "envs/tripoli/kernels.py")[""]


# ----- rule ids ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("page", "prefix"), sorted(RULE_PAGES.items()))
def test_rule_ids_defined_once_in_order_without_gaps(page: str, prefix: str):
    found = [(p, int(k)) for p, k in RULE_DEF.findall(text(page))]
    assert {p for p, _ in found} == {prefix}, f"{page} defines ids of another page: {found}"
    numbers = [k for _, k in found]
    assert numbers == list(range(1, len(numbers) + 1)), f"{page}: rule ids out of order or with gaps: {numbers}"
    assert len(numbers) >= LEAST_RULES[prefix]


def test_every_rule_id_cited_by_the_code_is_defined_in_docs():
    defined = {f"{p}{k}" for page in RULE_PAGES for p, k in RULE_DEF.findall(text(page))}
    for folder in ("envs", "agents", "training"):
        for file in sorted((ROOT / folder).rglob("*.py")):
            cited = {f"{p}{int(k)}" for p, k in RULE_CITE.findall(file.read_text(encoding="utf-8"))}
            missing = sorted(cited - defined)
            assert not missing, f"{file.relative_to(ROOT)} cites {missing}, which docs/ does not define"


# ----- options -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(GAMES))
def test_options_table_lists_every_config_field_with_its_default(game: str):
    page = text(f"{game}.md")
    for field in dataclasses.fields(game_class(game).config_class):
        row = re.search(rf"^\| `{field.name}` \|.*$", page, re.MULTILINE)
        assert row, f"{game}.md: no row for option {field.name} in the options table"
        assert f"`{field.default}`" in row[0], f"{game}.md: option {field.name} should show its default {field.default}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_options_marked_missing_are_missing(game: str):
    """Once the engine gets an option the page calls missing, the page must say how it works (and this fails)."""
    line = re.search(r"^Options the engine does not have yet: (.+)$", text(f"{game}.md"), re.MULTILINE)
    missing = re.findall(r"`(\w+)`", line[1]) if line else []
    fields = {f.name for f in dataclasses.fields(game_class(game).config_class)}
    assert not fields & set(missing), f"{game}.md calls {sorted(fields & set(missing))} missing; update the page"


# ----- the example agent -------------------------------------------------------------------------------------------
def test_agents_page_shows_the_example_agent_verbatim():
    code = (DOCS / "my_agent.py").read_text(encoding="utf-8")
    assert f"```python\n{code}```" in text("agents.md")
    assert "cardgym league" in text("agents.md")  # the page shows the agent in a league too


def test_example_agent_plays_through_cardgym_eval(monkeypatch, tmp_path, capsys):
    monkeypatch.syspath_prepend(str(DOCS))  # what `PYTHONPATH=.` does in docs/agents.md
    cardgym(["eval", "--agents", "my_agent:CautiousAgent", "heuristic", "heuristic", "heuristic", "--deals", "8",
             "--no-plot", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "my_agent:CautiousAgent" in out and "8 episodes" in out
    game = make_game("tripoli", 4)
    agent = make_agent("my_agent:CautiousAgent", game)
    state = game.init(5, batch_size=64)
    rng = np.random.default_rng(0)
    for _ in range(40):  # legal actions only, and never a call of more than 2 chips
        obs = game.observe(state, np.maximum(state.current_player, 0))
        actions = agent.act(obs, state.legal_action_mask, rng)
        live = ~state.done
        assert state.legal_action_mask[np.flatnonzero(live), actions[live]].all()
        owed = obs[:, TO_CALL] > 2
        assert not (live & owed & state.legal_action_mask[:, game.action_id("fold")]
                    & (actions == game.action_id("call"))).any()
        game.step(state, actions)
    with pytest.raises(ValueError, match="CautiousAgent plays tripoli, not triolet"):
        make_agent("my_agent:CautiousAgent", make_game("triolet", 4))
    with pytest.raises(AgentSpecError, match="no module named 'no_such_module'"):
        make_agent("no_such_module:Agent", game)


def test_agents_page_pettingzoo_loop_runs(monkeypatch):
    """The second code block of docs/agents.md (a PettingZoo loop with the example agent) runs to the end."""
    monkeypatch.syspath_prepend(str(DOCS))
    blocks = re.findall(r"```python\n(.*?)```", text("agents.md"), re.DOTALL)
    assert len(blocks) == 2 and "agent_iter" in blocks[1]
    scope: dict = {}
    exec(compile(blocks[1], "docs/agents.md", "exec"), scope)
    assert all(scope["env"].terminations.values())


# ----- worked examples ---------------------------------------------------------------------------------------------
def card_id(name: str) -> int:
    """``"10♦"`` / ``"K♠"`` → the card id (common.md)."""
    rank, suit = name[:-1], name[-1]
    return SUIT_SYMBOLS.index(suit) * 13 + RANK_LETTERS.index("T" if rank == "10" else rank)


def stacked(hands: list[str], n_hands: int) -> np.ndarray:
    """A deck dealt one card at a time to ``n_hands`` hands in order (as Tripoli and Flip Flop deal), then the rest."""
    deck: dict[int, int] = {}
    for k, hand in enumerate(hands):
        for i, card in enumerate(hand.split()):
            deck[k + n_hands * i] = card_id(card)
    head = [deck[j] for j in range(len(deck))]
    return np.array(head + [c for c in range(52) if c not in head])


def play(game, deck: np.ndarray, dealer: int, moves: list[str]) -> np.ndarray:
    state = game.init(0, decks=deck[None, :], dealers=np.array([dealer]))
    total = state.rewards[0].copy()
    for move in moves:
        game.step(state, np.array([game.action_id(move)]))
        total += state.rewards[0]
    assert state.terminated[0]
    return total


TRIPOLI_HANDS = [  # dealing order: left of the dealer (you), Bob, Cat, Ann (dealer), the spare hand
    "2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 8♦ 8♥ 2♦ K♠",
    "A♥ K♥ Q♥ 2♥ 3♥ 4♥ 7♥ 9♥ 10♣ J♣ Q♣",
    "3♦ 4♦ 5♦ 6♦ 2♠ 3♠ 4♠ 5♠ 6♠ 7♠",
    "J♥ 10♥ 6♥ 5♥ K♣ A♣ 9♦ 10♦ J♦ Q♦",
    "9♣ 7♦ K♦ A♦ 8♠ 9♠ 10♠ J♠ Q♠ A♠",
]


def test_tripoli_worked_example_full_house_loses_six():
    page = text("tripoli.md")
    for hand in TRIPOLI_HANDS:
        assert hand in page, f"tripoli.md: the worked example's hand {hand} is missing"
    poker = ["8♣ 8♦ 8♥ 2♣ 2♦", "A♥ K♥ Q♥ 9♥ 7♥", "2♠ 3♠ 4♠ 5♠ 6♠", "K♣ A♣ Q♦ J♦ 10♦"]
    moves = ["keep"] + [f"select {c}" for five in poker for c in five.split()]
    moves += ["bet 2", "call", "fold", "fold", "lead ♣", "lead ♦"]
    total = play(make_game("tripoli", 4), stacked(TRIPOLI_HANDS, 5), dealer=0, moves=moves)
    assert total.tolist() == [-11, -6, -6, 19]  # Ann, you, Bob, Cat
    assert "you −6, Bob −6, Cat +19, Ann −11" in page


FLIPFLOP_HANDS = ["2♥ K♣ Q♣ J♠ 9♠", "4♦ A♣ 2♣ 3♠ 5♠", "9♦ K♦ Q♦ 10♣ 6♥"]  # Bob, Cat, Ann (dealer)


def test_flipflop_worked_example_flip_flop_and_drop():
    page = text("flipflop.md")
    for hand in FLIPFLOP_HANDS:
        assert hand in page, f"flipflop.md: the worked example's hand {hand} is missing"
    deck = stacked(FLIPFLOP_HANDS, 3)
    rest = [c for c in deck[15:].tolist() if c != card_id("8♣")]
    deck = np.array(deck[:15].tolist() + [card_id("8♣")] + rest)
    total = play(make_game("flipflop", 3), deck, dealer=0, moves=["draw stock", "discard K♣", "drop"])
    assert total.tolist() == [-3, 0, 3]  # Ann, Bob, Cat
    assert "Ann −3, Bob 0, Cat +3" in page


TRIOLET_HANDS = {3: "3♣ 9♣ 9♦", 2: "8♦ 10♥ 3♦", 1: "2♠ A♠ 6♣", 0: "K♣ Q♥ 7♦"}  # you, Cat, Bob, Ann (dealer)
TRIOLET_STOCK = "Q♠ 6♠ K♦ J♠ 8♣ 8♥ J♦ Q♣"


def test_triolet_worked_example():
    page = text("triolet.md")
    for hand in [*TRIOLET_HANDS.values(), TRIOLET_STOCK]:
        assert hand in page, f"triolet.md: the worked example's cards {hand} are missing"
    game = make_game("triolet", 4)
    listed = {card_id(c) for cards in [*TRIOLET_HANDS.values(), TRIOLET_STOCK] for c in cards.split()}
    spare = [int(c) for c in game.cards if int(c) not in listed]  # face-down and face-up cards: any others
    front = []
    for seat in range(4):
        front += spare[6 * seat: 6 * seat + 6] + [card_id(c) for c in TRIOLET_HANDS[seat].split()]
    front += [card_id(c) for c in TRIOLET_STOCK.split()]
    state = game.init(0, decks=game.stacked_deck(front)[None, :], dealers=np.array([0]))
    moves = ["ready"] * 4 + ["play 1×3", "play 1×8", "play 1×2", "play 2×9", "play 1×3", "play 1×A"]
    for move in moves:
        game.step(state, np.array([game.action_id(move)]))
    burned = sorted(np.flatnonzero(state.burned[0]).tolist())
    assert burned == sorted(card_id(c) for c in "3♣ 8♦ 2♠ 7♦ 9♣ 9♦ 10♥".split())
    assert sorted(np.flatnonzero(state.known[0, 0]).tolist()) == sorted([card_id("3♦"), card_id("A♠")])
    assert state.hand[0, 0].sum() == 5 and state.hand[0, 1].sum() == 2 and state.current_player[0] == 3
    assert state.stock_pos[0] == state.deck.shape[1] and state.pile[0].sum() == 0


def test_card_names_of_the_examples():
    assert card_id("2♣") == 0 and card_id("A♠") == 51 and card_id("10♦") == 13 + 8
    assert SUIT_LETTERS == "cdhs"


# ----- the README and run ids --------------------------------------------------------------------------------------
README = ROOT / "README.md"
README_LINES, README_WIDTH = 250, 120
RUN_ID = re.compile(r"\b(make[-_]train(?:[-_](?:triolet|flipflop))?[-_]\d+|runs? t\d{1,2}\b|t\d{1,2} runs?\b"
                    r"|flipflop\d{1,2}\b|triolet\d\b|(?:flipflop|triolet)-anchored)")
"""A training run's id as docs/experiments.md names the runs (``t15``, ``make-train-9``, ``flipflop23`` …)."""
CODE = ("envs", "agents", "training", "benchmarks")


def test_readme_is_a_five_minute_read():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines (at most {README_LINES}): move detail to docs"
    wide = [n for n, line in enumerate(lines, 1) if len(line) > README_WIDTH]
    assert not wide, f"README.md lines over {README_WIDTH} characters: {wide}"


def test_readme_links_lead_to_files_and_headings():
    for target in LINK.findall(README.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        path = (ROOT / file).resolve() if file else README
        assert path.exists(), f"README.md: link ({target}) leads nowhere"
        if anchor:
            assert anchor in anchors(path), f"README.md: link ({target}): no such heading in {path.name}"


def test_readme_points_at_result_files_that_exist():
    """Every benchmarks/results file the README names (the source of a number it quotes) is committed."""
    body = README.read_text(encoding="utf-8")
    named = set(re.findall(r"\b((?:train|throughput|compare|compile_time|league|deviations)[\w.-]*\.json)\b", body))
    assert {"compare.json", "train_tripoli.json", "train_flipflop.json", "train_triolet.json"} <= named
    committed = {p.name for p in (ROOT / "benchmarks" / "results").rglob("*.json")}
    for name in named:
        if "*" in name or "GAME" in name:
            continue
        assert name in committed, f"README.md quotes {name}, which benchmarks/results/ does not hold"


def code_files() -> list[Path]:
    files = [f for folder in CODE for f in sorted((ROOT / folder).rglob("*.py"))]
    return files + [ROOT / "Makefile"]


def test_no_code_cites_a_training_run():
    """Docstrings and comments give the reason in words (and may point at docs/experiments.md), not a run's id."""
    cited = [f"{f.relative_to(ROOT)}:{n}: {m[0]}" for f in code_files()
             for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) for m in RUN_ID.finditer(line)]
    assert not cited, "run ids in code (say what was measured, see docs/experiments.md):\n" + "\n".join(cited)


def test_the_run_id_check_can_fail():
    for text_ in ("run t15 ties", "runs t20 and", "t28 run", "make-train-9", "make_train_11", "flipflop23",
                  "make-train-flipflop-7", "make-train-triolet-6", "triolet4", "flipflop-anchored-6"):
        assert RUN_ID.search(text_), text_
    for text_ in ("t0 = time.perf_counter()", "for t1, t2 in pairs", "flipflop_v1", "cardgym/flipflop-v1",
                  "test_t12_rule", "make train-flipflop", "make train"):
        assert not RUN_ID.search(text_), text_
    assert {line for line in text("experiments.md").splitlines() if RUN_ID.search(line)}  # where run ids live
