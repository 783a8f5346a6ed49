"""``cardgym eval``: a duplicate-deal tournament between agents, printed, saved as JSON and plotted.

    cardgym eval --game tripoli --players 4 --agents heuristic random random random --deals 20000 --seed 0 \\
        --out results --option paycards=play
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import typing
from contextlib import closing
from pathlib import Path
from typing import Any, Literal

from agents.registry import SPEC_HELP, make_agent
from envs.registry import GAME_CLASSES, game_class, make_game
from training.evaluate import EvalResult, evaluate
from training.executors import add_executor_arguments, executor_from_args


def parse_options(game: str, items: list[str]) -> dict[str, Any]:
    """``["key=value", ...]`` → rule options typed as the game's config fields (bool, int or text)."""
    cls = game_class(game).config_class
    hints = typing.get_type_hints(cls)
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key:
            raise ValueError(f"an option is written key=value, got {item!r}")
        hint = hints.get(key)
        if hint is bool:
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(f"{game}: option {key} takes true or false, got {text!r}")
            options[key] = text.lower() in ("true", "1", "yes")
        elif hint is int:
            try:
                options[key] = int(text)
            except ValueError:
                raise ValueError(f"{game}: option {key} takes an integer, got {text!r}") from None
        elif typing.get_origin(hint) is Literal and all(isinstance(a, int) for a in typing.get_args(hint)):
            options[key] = int(text) if text.lstrip("-").isdigit() else text
        else:  # text choices, or an unknown key that make_game will refuse with the list of known options
            options[key] = text
    return options


def file_stem(result: EvalResult) -> str:
    """``eval_<game>_<n>p_<agents>[_<option>-<value>…]`` with characters unsafe in file names left out."""
    agents = "-".join(re.sub(r"[^A-Za-z0-9.]+", "", Path(a).stem if a.startswith("ppo:") else a) for a in result.agents)
    options = "".join(f"_{k}-{v}" for k, v in result.options.items())
    return re.sub(r"[^A-Za-z0-9._-]+", "", f"eval_{result.game}_{result.num_players}p_{agents}{options}")[:150]


def run(args: argparse.Namespace) -> None:
    try:
        options = parse_options(args.game, args.option or [])
        game = make_game(args.game, num_players=args.players, **options)
        if len(args.agents) != game.num_players:
            raise ValueError(
                f"{args.game} with {game.num_players} players needs {game.num_players} agents (one per seat), "
                f"got {len(args.agents)}: {' '.join(args.agents)}"
            )
        agents = [make_agent(spec, game) for spec in args.agents]
        with closing(executor_from_args(args)) as executor:
            result = evaluate(game, agents, deals=args.deals, seed=args.seed, batch_size=args.batch_size,
                              names=args.agents, executor=executor, specs=args.agents)
    except ValueError as e:  # bad options, agent specs, model files, sizes: one clear line, exit status 2
        print(f"cardgym eval: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    print(result.table())
    if args.out is not None:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = file_stem(result)
        (out / f"{stem}.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n")
        written = [out / f"{stem}.json"]
        if not args.no_plot:
            from training.plots import plot_eval

            written.append(plot_eval(result, out / f"{stem}.png"))
        print("wrote " + ", ".join(str(p) for p in written))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="duplicate-deal tournament between agents (mean result per deal, 95% CI)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(GAME_CLASSES), default="tripoli")
    p.add_argument("--players", type=int, default=4, help="table size (default 4)")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help=f"one agent per seat: {SPEC_HELP}")
    p.add_argument("--deals", type=int, default=20_000,
                   help="episodes to play, rounded up to whole groups of one seed x all seat rotations")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=8192, help="tables stepped at once (one shard of work each)")
    p.add_argument("--out", default="eval_results", help="folder for the JSON and PNG (default eval_results)")
    p.add_argument("--no-plot", action="store_true", help="write the JSON only")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a rule option of the game (repeatable)")
    add_executor_arguments(p)
    p.set_defaults(func=run)
