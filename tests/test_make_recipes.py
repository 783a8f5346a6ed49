"""The Makefile's training recipes (``make train``, ``make train-triolet``, ``make train-flipflop``) are commands the
CLI accepts, with settings it can run: a typo there would surface only after a user's install and 15 minutes."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from envs.registry import make_game
from training.cli import build_parser
from training.cmd_train import config_from_args
from training.opponent_pool import parse_opponents
from training.train import closing_fields

MAKEFILE = Path(__file__).resolve().parent.parent / "Makefile"


def recipe(target: str) -> list[str]:
    """The arguments of ``cardgym`` in ``target``'s recipe, with the Makefile's variables filled in."""
    text = MAKEFILE.read_text().replace("\\\n", " ")
    variables = dict(re.findall(r"^(\w+) \?= (.+)$", text, flags=re.M))
    match = re.search(rf"^{re.escape(target)}:.*\n\t(.+)$", text, flags=re.M)
    assert match, f"no recipe for {target}"
    line = re.sub(r"\$\((\w+)\)", lambda m: variables.get(m.group(1), m.group(0)), match.group(1))
    words = shlex.split(line)
    assert words[0].endswith("/bin/cardgym"), line
    return words[1:]


@pytest.mark.parametrize(("target", "game"), [("train", "tripoli"), ("train-triolet", "triolet"),
                                              ("train-flipflop", "flipflop")])
def test_training_recipes_parse_into_runnable_settings(target: str, game: str) -> None:
    args = build_parser().parse_args(recipe(target))
    cfg = config_from_args(args)
    assert cfg.game == game and cfg.out == f"runs/{game}"
    assert 0 < cfg.time_budget <= 14 * 60  # with the closing table, each target stays within 15 minutes here
    built = make_game(cfg.game, num_players=cfg.players, **cfg.options)
    assert parse_opponents(cfg.opponents, built) and closing_fields(cfg, built, {})
