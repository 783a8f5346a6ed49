"""``cardgym league``: rank a field of agents over a seat-balanced schedule of lineups and duplicate deals.

    cardgym league --game tripoli --players 4 --agents heuristic random mymodule:Tight mymodule:Loose \\
        --deals 20000 --seed 0 --out leagues [--workers 4 | --ray [ADDRESS]]

Writes DIR/league_<game>_<n>p.json (schedule, seeds, agents and versions, every deal's result, ratings, payoff
matrix) and .png, and prints the table. Finished shards go to DIR/league_<game>_<n>p.shards.jsonl as they complete:
the same command after an interruption continues from them (and ends with the same result). Files of another league
(or of a finished one) in DIR are refused unless --force, which starts again; so is a DIR that cannot hold the
files (a file, a folder without write permission), before any shard is played. A league needs at least as many
different agents as seats; to compare fewer agents, use cardgym eval with repeated specs.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import closing
from pathlib import Path

from tqdm import tqdm

from agents.registry import SPEC_HELP
from envs.registry import GAMES
from training.cli_args import check_output_file, check_output_folder, count, integer, parse_options, seed_int
from training.executors import add_executor_arguments, executor_from_args
from training.league import LeagueConfig, LeagueRun, league_files
from training.limits import MAX_DEALS, MAX_SHARD_GROUPS


def check_outputs(out: str, config: LeagueConfig, plot: bool) -> None:
    """Refuse (:class:`~training.cli_args.CommandError`) an ``--out`` that cannot hold the league's files before any
    work: a file, a folder that cannot be written, a league file that is a folder or cannot be overwritten (whether
    an existing league may be resumed or replaced is :class:`~training.league.LeagueRun`'s question)."""
    check_output_folder(out, "--out")
    files = league_files(Path(out), config)
    for kind in ("shards", "json", "png") if plot else ("shards", "json"):
        check_output_file(files[kind], "--out", force=True)


def run(args: argparse.Namespace) -> None:
    files: dict[str, Path] = {}
    try:
        config = LeagueConfig(
            game=args.game, num_players=args.players, agents=tuple(args.agents), deals=args.deals, seed=args.seed,
            options=tuple(parse_options(args.game, args.option or []).items()), shard_groups=args.shard_groups,
        )
        check_outputs(args.out, config, plot=not args.no_plot)
        league = LeagueRun(config, out=args.out, force=args.force)  # checks everything before any work starts
        files = league_files(Path(args.out), league.config)
        with closing(executor_from_args(args)) as executor:
            print(f"cardgym league: {league.plan.shards} shards, run {executor.description}", file=sys.stderr)
            if league.resumed:
                print(f"cardgym league: resuming: {league.resumed} shards were played before ({files['shards']})",
                      file=sys.stderr)
            with tqdm(desc="shards", unit="shard", file=sys.stderr, disable=args.quiet, leave=False) as bar:

                def progress(done: int, total: int) -> None:
                    bar.total = total
                    bar.n = done
                    bar.refresh()

                result = league.play(executor, progress)
    except KeyboardInterrupt:
        saved = f"the finished shards are in {files['shards']}: the same command resumes" if files else "nothing ran"
        print(f"cardgym league: interrupted; {saved}", file=sys.stderr)
        raise SystemExit(130) from None
    print(result.table())
    written = [files["json"]]
    if not args.no_plot:
        from training.league_report import plot_league

        written.append(plot_league(result, files["png"]))
    print("wrote " + ", ".join(str(p) for p in written))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("league", help="rank a field of agents: seat-balanced lineups, duplicate deals, ratings",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(GAMES), default="tripoli")
    p.add_argument("--players", type=integer, default=4, help="seats per table (default 4)")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help=f"the field, at least as many different agents as seats: {SPEC_HELP}")
    p.add_argument("--deals", type=count(MAX_DEALS), default=20_000,
                   help="episodes in all, rounded up to whole deal groups (each played by every lineup in every "
                        f"rotation; 1 to {MAX_DEALS:,}; default 20,000)")
    p.add_argument("--seed", type=seed_int, default=0,
                   help="seed of the schedule, the deals and the agents' random streams (0 to 2**64 - 1; default 0)")
    p.add_argument("--out", default="league_results", help="folder for the JSON, PNG and shard log")
    p.add_argument("--force", action="store_true", help="start again, replacing a league already in --out")
    p.add_argument("--shard-groups", type=count(MAX_SHARD_GROUPS), default=512, metavar="G",
                   help=f"deal groups per shard, the unit of work and of resumption (1 to {MAX_SHARD_GROUPS:,}; "
                        "default 512)")
    p.add_argument("--no-plot", action="store_true", help="write the JSON only")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a rule option of the game (repeatable)")
    add_executor_arguments(p)
    p.set_defaults(func=run)
