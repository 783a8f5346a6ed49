"""Bad input to the agent registry (agents/registry.py) and the evaluation entry points (training/evaluate.py):
unknown specs, modules that fail, constructors that fail, objects without ``act``, agents built for another game,
malformed tournament arguments. Each refusal is one line naming what was wrong. ``module:Class`` specs import from
the current directory, as ``python -m`` does."""

from __future__ import annotations

import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.random_agent import RandomAgent
from agents.registry import AgentSpecError, make_agent
from envs.core.checks import ArgumentError
from envs.registry import make_game
from tests.input_helpers import GAMES, refused
from training.evaluate import evaluate, play_tables

BOT = """
import numpy as np
from envs.core.agent import AgentBase

class Bot(AgentBase):
    name = "bot"

    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1)
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty current directory that is not on ``sys.path`` (as for an installed ``cardgym`` command)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    return tmp_path


def _module(workdir: Path, name: str, source: str) -> str:
    """Write ``name``.py in the current directory; its module is forgotten after the test."""
    (workdir / f"{name}.py").write_text(textwrap.dedent(source))
    sys.modules.pop(name, None)
    return name


@pytest.fixture(autouse=True)
def _forget_test_modules():
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("inputs_bots_"):
            del sys.modules[name]


# ----- the registry --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_module_class_specs_import_from_the_current_directory(workdir: Path, name: str) -> None:
    module = _module(workdir, f"inputs_bots_cwd_{name}", BOT)
    game = make_game(name, num_players=3)
    agent = make_agent(f"{module}:Bot", game)
    assert agent.name == "bot" and agent.game is game
    assert str(workdir) == sys.path[0]  # first, as python -m puts it
    make_agent(f"{module}:Bot", game)
    assert sys.path.count(str(workdir)) == 1  # once


def test_a_constructor_that_fails_is_one_line(workdir: Path) -> None:
    module = _module(workdir, "inputs_bots_ctor", """
        class Bot:
            def __init__(self, game):
                raise ValueError("this bot\\nneeds five players")

            def act(self, obs, mask, rng):
                return mask.argmax(axis=1)
    """)
    refused(lambda: make_agent(f"{module}:Bot", make_game("tripoli", 4)), AgentSpecError,
            f"agent '{module}:Bot': Bot(TripoliGame(num_players=4)) failed: ValueError: this bot needs five players")


def test_a_class_without_act_is_refused_before_it_is_built(workdir: Path) -> None:
    module = _module(workdir, "inputs_bots_noact", """
        BUILT = []

        class Bot:
            def __init__(self, game):
                BUILT.append(game)
    """)
    refused(lambda: make_agent(f"{module}:Bot", make_game("triolet", 3)), AgentSpecError,
            "Bot has no act(obs, mask, rng) method")
    assert sys.modules[module].BUILT == []


@pytest.mark.parametrize("source, words", [
    ("raise RuntimeError('no GPU\\nhere')\n", ("importing", "failed: RuntimeError: no GPU here")),
    ("def broken(:\n", ("importing", "failed: SyntaxError")),
    ("import inputs_no_such_dependency\n",
     ("failed: ModuleNotFoundError: No module named 'inputs_no_such_dependency'",)),
    ("Bot = 3\n", ("is not a class",)),
    ("from agents.random_agent import RandomAgent\nfrom envs.registry import make_game\n"
     "def Bot(game):\n    return RandomAgent(make_game('flipflop', 5))\n",
     ("was built for FlipFlopGame(num_players=5)",)),
    ("def Bot(game):\n    return object()\n", ("must be an agent with an act(obs, mask, rng) method",)),
])
def test_modules_that_fail_are_one_line(workdir: Path, source: str, words: tuple[str, ...]) -> None:
    module = _module(workdir, f"inputs_bots_fail_{zlib.crc32(source.encode())}", source)
    refused(lambda: make_agent(f"{module}:Bot", make_game("tripoli", 3)), AgentSpecError, *words)


@pytest.mark.parametrize("spec, words", [
    ("mybots.py:Bot", ("give the module name ('mybots'), not the file name",)),
    ("mybots:", ("needs a module name and a class name",)),
    (":Bot", ("needs a module name and a class name",)),
    ("my-bots:Bot", ("needs a module name and a class name",)),
    ("inputs_no_such_module:Bot", ("no module named 'inputs_no_such_module'",)),
    ("agents.random_agent:Nope", ("has no attribute 'Nope'",)),
])
def test_malformed_module_class_specs(workdir: Path, spec: str, words: tuple[str, ...]) -> None:
    refused(lambda: make_agent(spec, make_game("tripoli", 3)), AgentSpecError, *words)


@settings(max_examples=50)
@given(spec=st.one_of(st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2),
                      st.text(alphabet=" \t\n", max_size=3)))
def test_non_strings_and_blank_specs_refused(spec) -> None:
    refused(lambda: make_agent(spec, make_game("flipflop", 3)), AgentSpecError,
            "an agent spec must be a non-empty string")


@settings(max_examples=50)
@given(spec=st.text(min_size=1, max_size=12).filter(
    lambda s: s.strip() and ":" not in s and s.strip() not in ("random", "heuristic")))
def test_unknown_names_refused(spec: str) -> None:
    refused(lambda: make_agent(spec, make_game("triolet", 3)), AgentSpecError, "unknown agent", "known agents: random")


def test_a_game_that_is_no_game_refused() -> None:
    refused(lambda: make_agent("random", "tripoli"), AgentSpecError, "game must be a game core")


# ----- evaluate ------------------------------------------------------------------------------------------------------
def _agents(game, k: int | None = None) -> list[RandomAgent]:
    return [RandomAgent(game) for _ in range(game.num_players if k is None else k)]


@pytest.mark.parametrize("name", GAMES)
def test_evaluate_refuses_agents_built_for_another_game(name: str) -> None:
    game = make_game(name, num_players=3)
    for other in (make_game(name, num_players=4), make_game(name, num_players=3, auto_forced=False),
                  make_game("flipflop" if name != "flipflop" else "tripoli", num_players=3)):
        agents = _agents(game)
        agents[1] = RandomAgent(other)
        refused(lambda agents=agents: evaluate(game, agents, deals=3), ArgumentError,
                "agents[1] ('random') was built for", f"not for {game!r}")


@pytest.mark.parametrize("kwargs, words", [
    ({"deals": 0}, ("deals must be a positive integer",)),
    ({"deals": 2.5}, ("deals must be a positive integer",)),
    ({"deals": "9"}, ("deals must be a positive integer",)),
    ({"deals": True}, ("deals must be a positive integer",)),
    ({"seed": -1}, ("seed must be an integer from 0 to 2**64-1",)),
    ({"seed": 2**64}, ("seed must be an integer from 0 to 2**64-1",)),
    ({"seed": 1.0}, ("seed must be an integer from 0 to 2**64-1",)),
    ({"batch_size": 2}, ("batch_size must be an integer at least the number of players (3)",)),
    ({"batch_size": 8.0}, ("batch_size must be an integer at least",)),
    ({"names": ["a", "b"]}, ("names must be None or 3 agent names",)),
    ({"names": "abc"}, ("names must be None or 3 agent names",)),
    ({"names": [1, 2, 3]}, ("names must be None or 3 agent names",)),
])
def test_evaluate_refuses_bad_arguments(kwargs: dict, words: tuple[str, ...]) -> None:
    game = make_game("triolet", num_players=3)
    refused(lambda: evaluate(game, _agents(game), **kwargs), ArgumentError, *words)


def test_evaluate_refuses_what_is_not_a_list_of_agents() -> None:
    game = make_game("tripoli", num_players=3)
    refused(lambda: evaluate(game, "random"), ArgumentError, "agents must be a list of agents")
    refused(lambda: evaluate(game, [RandomAgent(game), "heuristic", RandomAgent(game)]), ArgumentError,
            "agents[1] must be an agent with an act(obs, mask, rng) method")
    refused(lambda: evaluate(game, _agents(game, 2)), ArgumentError, "needs 3 agents (one per seat), got 2")
    refused(lambda: evaluate("tripoli", _agents(game)), ArgumentError, "game must be a game core")


def test_evaluate_takes_numpy_integers_and_64_bit_seeds() -> None:
    game = make_game("tripoli", num_players=3)
    a = evaluate(game, _agents(game), deals=np.int64(6), seed=np.uint64(2**64 - 1), batch_size=np.int32(6))
    b = evaluate(game, _agents(game), deals=6, seed=2**64 - 1, batch_size=6)
    assert a.seed == 2**64 - 1 and type(a.seed) is int
    np.testing.assert_array_equal(a.group_returns, b.group_returns)


def test_play_tables_refuses_bad_arguments_and_float_actions() -> None:
    game = make_game("flipflop", num_players=3)
    rng = np.random.default_rng(0)
    seats = np.zeros((4, 3), np.int64)
    refused(lambda: play_tables(game, _agents(game, 1), seats + 1, np.arange(4), rng), ArgumentError,
            "seat_agent must be agent indices 0..0")
    refused(lambda: play_tables(game, _agents(game, 1), seats[:2], np.arange(4), rng), ArgumentError,
            "seat_agent must be", "shape (4, 3)")
    refused(lambda: play_tables(game, _agents(game, 1), seats, np.arange(4), 0), ArgumentError, "rng must be")
    refused(lambda: play_tables(game, _agents(game, 1), seats, np.arange(4), rng, max_steps=0), ArgumentError,
            "max_steps must be a positive integer")

    class Floaty(RandomAgent):
        name = "floaty"

        def act(self, obs, mask, rng):
            return super().act(obs, mask, rng) + 0.7  # would have been truncated to the legal action

    refused(lambda: play_tables(game, [Floaty(game)], seats, np.arange(4), rng), ValueError,
            "agent 'floaty' returned", "one integer action id per table")
