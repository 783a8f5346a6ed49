"""``cardgym eval``: a duplicate-deal tournament between agents, printed, saved as JSON and plotted.

    cardgym eval --game tripoli --agents ppo:runs/tripoli/distilled/model.zip heuristic heuristic heuristic \\
        --baseline heuristic --deals 20000 --seed 0 --out results --option paycards=play

``--baseline SPEC`` plays the same duplicate deals a second time with SPEC in place of the first agent and prints
the first agent's advantage: its mean result per episode minus the baseline's in the same seats of the same deals,
with its 95% interval, paired over the deal groups (both sides of the difference were dealt the same cards).

The results go to OUT/eval_<game>_<n>p_<agents>[_<option>-<value>…].json and .png (--no-save: none). The files are
checked before the tournament starts: an existing one is kept (the command stops at once) unless --force.
"""

from __future__ import annotations

import argparse
import json
import re
from contextlib import closing
from pathlib import Path

import numpy as np

from agents.registry import SPEC_HELP, make_agent
from envs.aec import CardGymEnv
from envs.core.agent import call_agent, wants_seat_view
from envs.gamelog import GameRecorder
from envs.registry import GAMES, make_game
from training.cli_args import (
    CommandError,
    check_output_file,
    check_output_folder,
    count,
    integer,
    parse_options,
    seed_int,
)
from training.evaluate import advantage, evaluate, group_seeds
from training.executors import add_executor_arguments, executor_from_args
from training.limits import MAX_DEALS, MAX_TABLES


def file_stem(game: str, num_players: int, agents: list[str], options: dict) -> str:
    """``eval_<game>_<n>p_<agents>[_<option>-<value>…]`` with characters unsafe in file names left out."""
    names = "-".join(re.sub(r"[^A-Za-z0-9.]+", "", Path(a).stem if a.startswith("ppo:") else a) for a in agents)
    opts = "".join(f"_{k}-{v}" for k, v in options.items())
    return re.sub(r"[^A-Za-z0-9._-]+", "", f"eval_{game}_{num_players}p_{names}{opts}")[:150]


def log_first_group(game, agents: list, seed: int, path: str) -> None:
    """``--log``: the first deal group of the evaluation — its deal played once per seat rotation, agent ``i`` at seat
    ``(i + r) % n`` in rotation ``r`` — recorded one table at a time through the PettingZoo face as JSON Lines. With
    deterministic agents these are the evaluated games move for move; agents that draw random moves draw their own."""
    n = game.num_players
    table_seed = int(group_seeds(seed, 1)[0])
    env = CardGymEnv(game, seat_views=any(wants_seat_view(a) for a in agents))
    env.recorder = GameRecorder(path)
    rng = np.random.default_rng(seed)
    try:
        for r in range(n):
            env.reset(seed=table_seed)
            while not bool(env.state_.done[0]):
                seat = int(env.state_.current_player[0])
                obs = env.observe(env.possible_agents[seat])["observation"][None, :]
                mask = env.state_.legal_action_mask[:1].astype(bool)
                agent = agents[(seat - r) % n]
                views = [env.seat_view(env.possible_agents[seat])] if wants_seat_view(agent) else None
                env.step(int(np.asarray(call_agent(agent, obs, mask, rng, views))[0]))
    finally:
        env.close()
    print(f"the first deal group ({n} games, one per seat rotation) written to {path} (cardgym replay {path})")


def run(args: argparse.Namespace) -> None:
    game = make_game(args.game, num_players=args.players, **parse_options(args.game, args.option or []))
    n = game.num_players
    if len(args.agents) != n:
        raise CommandError(f"{args.game} with {n} players needs {n} agents (one per seat), got {len(args.agents)}: "
                           f"{' '.join(args.agents)}")
    if args.batch_size < n:
        raise CommandError(f"--batch-size must be at least the number of players ({n}), got {args.batch_size}")
    outputs = []
    if not args.no_save:
        check_output_folder(args.out, "--out")
        stem = file_stem(game.name, n, args.agents, game.changed_options())
        kinds = ["json"] if args.no_plot else ["json", "png"]
        outputs = [Path(args.out) / f"{stem}.{kind}" for kind in kinds]
        for path in outputs:
            check_output_file(path, "--out", args.force)
    if args.log is not None:
        check_output_file(args.log, "--log", args.force)
    agents = [make_agent(spec, game) for spec in args.agents]
    baseline = None if args.baseline is None else make_agent(args.baseline, game)
    with closing(executor_from_args(args)) as executor:
        result = evaluate(game, agents, deals=args.deals, seed=args.seed, batch_size=args.batch_size,
                          names=args.agents, executor=executor, specs=args.agents)
        base = None if baseline is None else evaluate(
            game, [baseline] + agents[1:], deals=args.deals, seed=args.seed, batch_size=args.batch_size,
            names=[args.baseline] + args.agents[1:], executor=executor, specs=[args.baseline] + args.agents[1:])
    print(result.table())
    report = result.to_dict()
    if base is not None:
        mean, half = advantage(result, base)
        print(f"baseline: {args.baseline} in the place of {args.agents[0]} makes {base.mean[0]:+.3f} ± "
              f"{base.ci95[0]:.3f} {result.unit} / episode")
        print(f"advantage of {args.agents[0]} over {args.baseline} in the same seats of the same deals: "
              f"{mean:+.3f} ± {half:.3f} {result.unit} / episode (95% interval, paired over the deal groups)")
        report["baseline"] = {"agent": args.baseline, "mean": float(base.mean[0]), "ci95": float(base.ci95[0]),
                              "advantage": mean, "advantage_ci95": half}
    if args.log is not None:
        log_first_group(game, agents, args.seed, args.log)
    if outputs:
        outputs[0].parent.mkdir(parents=True, exist_ok=True)
        outputs[0].write_text(json.dumps(report, indent=2) + "\n")
        if not args.no_plot:
            from training.plots import plot_eval

            plot_eval(result, outputs[1])
        print("wrote " + ", ".join(str(p) for p in outputs))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="duplicate-deal tournament between agents (mean result per deal, 95%% CI)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(GAMES), default="tripoli")
    p.add_argument("--players", type=integer, default=4, help="table size (default 4)")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help=f"one agent per seat: {SPEC_HELP}")
    p.add_argument("--baseline", default=None, metavar="SPEC",
                   help="also print the first agent's advantage over this agent in the same seats of the same deals")
    p.add_argument("--deals", type=count(MAX_DEALS), default=20_000,
                   help=f"episodes to play, rounded up to whole groups of one seed x all seat rotations (1 to "
                        f"{MAX_DEALS:,}; default 20,000)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of the deal groups (0 to 2**64 - 1; default 0)")
    p.add_argument("--batch-size", type=count(MAX_TABLES), default=8192,
                   help=f"tables stepped at once (1 to {MAX_TABLES:,}; default 8192)")
    p.add_argument("--out", default="eval_results", help="folder for the JSON and PNG (default eval_results)")
    p.add_argument("--force", action="store_true", help="overwrite result files of the same name in --out (and --log)")
    p.add_argument("--log", default=None, metavar="FILE",
                   help="also record the first deal group's games (one per seat rotation) as a game log in FILE")
    p.add_argument("--no-plot", action="store_true", help="write the JSON only")
    p.add_argument("--no-save", action="store_true", help="print the results only, write no files")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a rule option of the game (repeatable)")
    add_executor_arguments(p)
    p.set_defaults(func=run)
