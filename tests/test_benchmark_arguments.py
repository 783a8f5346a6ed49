"""The command lines of the benchmarks (``python -m benchmarks.NAME``, :mod:`benchmarks.arguments`): bad input at
every one of them is refused with one line naming the option and exit status 2, before anything is written."""

from __future__ import annotations

import importlib
import pkgutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import benchmarks
from benchmarks import COMMITTED

REFUSAL_SECONDS = 120
"""Bad input is refused long before this (a refusal that regressed would otherwise run the benchmark, or hang)."""
RECIPE = str(Path(benchmarks.__file__).parent.parent / "recipes" / "tripoli.toml")

BAD_INPUTS: dict[str, list[tuple[list[str], str]]] = {
    "compare": [
        (["--seconds", "-1"], "--seconds"),
        (["--seconds", "0"], "--seconds"),
        (["--seconds", "nan"], "--seconds"),
        (["--batches", "0"], "--batches"),
        (["--sample-tables", "0"], "--sample-tables"),
    ],
    "compile_time": [
        (["--players", "0"], "--players"),
        (["--players", "1"], "--players"),
        (["--players", "9"], "--players"),  # Tripoli seats 9, Le triolet and Flip Flop fewer
    ],
    "deviations": [
        (["--model", "heuristic", "--players", "1"], "--players"),
        (["--model", "heuristic", "--game", "flipflop", "--players", "8"], "--players"),
        (["--model", "heuristic", "--game", "poker"], "--game"),
        (["--model", "heuristic", "--deals", "0"], "--deals"),
        (["--model", "heuristic", "--top", "-1"], "--top"),
        (["--model", "heuristic", "--seed", "-3"], "--seed"),
    ],
    "exploitability": [
        (["--players", "1"], "--players"),
        (["--games", "triolet", "--players", "9"], "--players"),
        (["--games", "poker"], "--games"),
        (["--steps", "0"], "--steps"),
        (["--deals", "-1"], "--deals"),
        (["--tables", "0"], "--tables"),
        (["--seed", "-1"], "--seed"),
    ],
    "learner_throughput": [
        (["--updates", "0"], "--updates"),
        (["--updates", "-1"], "--updates"),
        (["--recipe", RECIPE, "--updates", str(10**12)], "--updates"),  # past the largest budget in decisions
        (["--recipe", "no-such-recipe.toml"], "--recipe"),
        (["--threads", "0"], "--threads"),
        (["--sb3-tables", "0"], "--sb3-tables"),
        (["--sb3-steps", "0"], "--sb3-steps"),
        (["--seed", "-1"], "--seed"),
    ],
    "one_process": [
        (["--seconds", "-1"], "--seconds"),
        (["--seconds", "0"], "--seconds"),
        (["--batches", "0"], "--batches"),
        (["--repeats", "0"], "--repeats"),
    ],
    "record_training": [
        (["name", "no-such-run", "--command", "c", "--note", "n"], "no-such-run"),
        (["name", "no-such-run", "--note", "n"], "--command"),
    ],
    "search": [
        (["--players", "0"], "--players"),
        (["--players", "8"], "--players"),  # Flip Flop seats 7 at most
        (["--games", "poker"], "--games"),
        (["--games", ","], "--games"),
        (["--deals", "-1"], "--deals"),
        (["--deals", "0"], "--deals"),
        (["--batch", "0"], "--batch"),
        (["--seed", "-1"], "--seed"),
        (["--agent", "nobody"], "--agent"),
    ],
    "strength": [
        (["--players", "1"], "--players"),
        (["--players", "9"], "--players"),
        (["--games", "poker"], "--games"),
        (["--deals", "0"], "--deals"),
        (["--seed", "-1"], "--seed"),
        (["--agents", "nobody"], "--agents"),
    ],
    "table_signal": [
        (["--players", "1"], "--players"),
        (["--players", "9"], "--players"),
        (["--games", "triolet"], "--games"),
        (["--deals", "0"], "--deals"),
        (["--seed", "-1"], "--seed"),
    ],
    "throughput": [
        (["--game", "triolet", "--players", "9"], "--players"),
        (["--game", "tripoli", "--players", "0"], "--players"),
        (["--game", "poker"], "--game"),
        (["--game", "tripoli", "--seconds", "-1"], "--seconds"),
        (["--game", "tripoli", "--seconds", "0"], "--seconds"),
        (["--game", "tripoli", "--seconds", "inf"], "--seconds"),
        (["--game", "tripoli", "--batches", "0"], "--batches"),
        (["--game", "tripoli", "--batches", "64", "-8"], "--batches"),
    ],
    "train_throughput": [
        (["--players", "1"], "--players"),
        (["--game", "poker"], "--game"),
        (["--opponent", "nobody"], "--opponent"),
        (["--tables", "0"], "--tables"),
        (["--steps", "0"], "--steps"),
        (["--threads", "0"], "--threads"),
        (["--rllib-runners", "0"], "--rllib-runners"),
        (["--seed", "-1"], "--seed"),
    ],
}
"""For each benchmark module with a ``main``: bad command lines, each with the option its refusal must name."""


def modules_with_a_main() -> list[str]:
    """The modules of ``benchmarks/`` that are command-line entry points (they define ``main``)."""
    return sorted(info.name for info in pkgutil.iter_modules(benchmarks.__path__)
                  if hasattr(importlib.import_module(f"benchmarks.{info.name}"), "main"))


def _not_refused(signum: int, frame: Any) -> None:
    raise TimeoutError(f"not refused within {REFUSAL_SECONDS} s: the benchmark ran")


def exit_status(main: Callable[[list[str]], Any], argv: list[str]) -> Any:
    """The exit status of ``main(argv)`` run as ``python -m``: a refusal while parsing raises ``SystemExit``; a
    module whose ``main`` returns a status (``sys.exit(main())``) refuses input it finds wrong later by returning 2.
    Raises ``TimeoutError`` after :data:`REFUSAL_SECONDS`."""
    previous = signal.signal(signal.SIGALRM, _not_refused)
    signal.alarm(REFUSAL_SECONDS)
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def files_under(folder: Path) -> dict[Path, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time."""
    return {path: (path.stat().st_size, path.stat().st_mtime_ns) for path in folder.rglob("*") if path.is_file()}


def test_every_benchmark_with_a_main_has_bad_inputs() -> None:
    assert modules_with_a_main() == sorted(BAD_INPUTS), "give each benchmark module with a main its bad inputs"


@pytest.mark.parametrize(("name", "argv", "option"),
                         [(name, argv, option) for name, cases in BAD_INPUTS.items() for argv, option in cases],
                         ids=[f"{name} {' '.join(argv)}" for name, cases in BAD_INPUTS.items() for argv, _ in cases])
def test_bad_input_is_one_line_naming_the_option_and_writes_nothing(name: str, argv: list[str], option: str,
                                                                     tmp_path, monkeypatch, capsys) -> None:
    main = importlib.import_module(f"benchmarks.{name}").main
    monkeypatch.chdir(tmp_path)  # a run writes runs/benchmarks/ (and exploitability its --work folder) here
    committed = files_under(COMMITTED)
    capsys.readouterr()
    assert exit_status(main, argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"python -m benchmarks.{name}: error: ") and option in err[0], err
    assert list(tmp_path.iterdir()) == []
    assert files_under(COMMITTED) == committed
