"""``cardgym train``: train a MaskablePPO agent on the batched vector env (see :mod:`training.train`).

    cardgym train --game tripoli --players 4 --opponents heuristic --minutes 10 --out runs/tripoli
    cardgym train --opponents heuristic=3,random=1 --selfplay --steps 5000000 --out runs/mix
    cardgym train --resume runs/tripoli/checkpoints/step_1000000.zip --minutes 5 --out runs/tripoli
    cardgym train --engine rllib --env-runners 4 --minutes 10 --out runs/rllib   # pip install -e ".[rllib]"
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.hints import game_hints
from agents.registry import ANCHORS, SPEC_HELP, check_anchor_kinds, make_agent
from envs.registry import GAMES, make_game
from training.cli_args import (
    CommandError,
    check_output_folder,
    count,
    integer,
    kind_weight,
    non_negative_float,
    number_upto,
    parse_options,
    positive_float,
    seed32_int,
)
from training.keep import KEEP_RULES
from training.limits import (
    MAX_DEALS,
    MAX_FAMILY_MEMBERS,
    MAX_MINUTES,
    MAX_SNAPSHOT_FIELDS,
    MAX_STEPS,
    MAX_TABLES,
    MAX_WORKERS,
)
from training.train_config import LEAGUE_MEASURES, TrainConfig

DEFAULTS = TrainConfig()


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The :class:`TrainConfig` of parsed command-line arguments."""
    return TrainConfig(
        game=args.game,
        engine=args.engine,
        env_runners=args.env_runners,
        players=args.players,
        options=parse_options(args.game, args.option or []),
        opponents=args.opponents,
        whole_table=args.whole_table,
        selfplay=args.selfplay,
        selfplay_every=args.selfplay_every,
        selfplay_share=args.selfplay_share,
        league=args.league,
        league_by=args.league_by,
        league_power=args.league_power,
        league_floor=args.league_floor,
        imitate=0 if args.engine == "rllib" else args.imitate,
        imitate_teacher=args.imitate_teacher,
        total_steps=args.steps,
        time_budget=args.minutes * 60.0,
        seed=args.seed,
        out=args.out if args.out is not None else f"runs/{args.game}",
        tables=args.tables,
        reward_scale=args.reward_scale,
        learning_rate=args.learning_rate,
        anneal_lr=args.anneal_lr,
        ent_coef=args.ent_coef,
        hints=args.hints,
        anchor=args.anchor or "",
        anchor_weight=args.anchor_weight,
        anchor_kind_weights=dict(args.anchor_weight_on or []),
        eval_every=args.eval_every,
        eval_deals=args.eval_deals,
        background_eval=args.background_eval,
        final_deals=args.final_deals,
        fields=args.fields,
        snapshot_fields=args.snapshot_fields,
        keep=args.keep,
        checkpoint_every=args.checkpoint_every,
        resume=args.resume,
        progress=not args.no_progress,
    )


def run(args: argparse.Namespace) -> None:
    try:
        cfg = config_from_args(args)
    except ValueError as e:  # a setting out of its range (TrainConfig's checks)
        raise CommandError(str(e)) from None
    # What can be checked without torch is checked before it is loaded (the opponents: by train, before any work).
    game = make_game(cfg.game, num_players=cfg.players, **cfg.options)
    if cfg.resume is not None and not Path(cfg.resume).is_file():
        raise CommandError(f"--resume {cfg.resume}: no such file")
    if cfg.imitate and not cfg.resume:
        make_agent(cfg.imitate_teacher, game)
    try:
        check_anchor_kinds(game, cfg.anchor_kind_weights)
    except ValueError as e:
        raise CommandError(f"--anchor-weight-on: {e}") from None
    if cfg.hints:
        try:
            game_hints(cfg.game)
        except ValueError as e:
            raise CommandError(f"--hints: {e}") from None
    check_output_folder(cfg.out, "--out")
    if cfg.engine == "rllib":
        run_rllib(cfg)
        return
    from training.train import train

    result = train(cfg)
    print()
    print(result["table"])
    kept = result["kept"]
    if not kept["is_last"]:
        print(f"kept (--keep best): the policy of the evaluation at {kept['steps']:,} learner decisions, whose worst "
              f"opponent family was {kept['worst_family']:+.2f}; the last policy is {Path(cfg.out) / 'last.zip'}")
    print(f"{result['steps']:,} learner decisions in {result['train_seconds']:.0f} s "
          f"({result['steps_per_second']:,} /s); model {result['model']}; results, learning_curve.png and "
          f"TensorBoard logs (tb/) in {cfg.out}; closing evaluation {result['closing_seconds']:.0f} s")


def run_rllib(cfg: TrainConfig) -> None:
    """``--engine rllib``: refuse what it does not support, then train on Ray (:mod:`training.rllib_train`)."""
    for flag, used in (("--selfplay", cfg.selfplay), ("--league", cfg.league), ("--resume", cfg.resume),
                       ("--anchor", cfg.anchor), ("--anneal-lr", cfg.anneal_lr > 0),
                       ("--keep best", cfg.keep != "last"), ("--background-eval", cfg.background_eval)):
        if used:
            raise CommandError(f"{flag} is not supported by --engine rllib (use --engine sb3)")
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        raise CommandError('--engine rllib needs RLlib: pip install -e ".[rllib]" (or pip install "ray[rllib]")') \
            from None
    from training.rllib_train import train_rllib

    result = train_rllib(cfg, cfg.env_runners)
    print()
    print(result["table"])
    print(f"{result['steps']:,} learner decisions in {result['train_seconds']:.0f} s "
          f"({result['steps_per_second']:,} /s) on {cfg.env_runners} env runner(s); model {result['model']}; "
          f"results in {cfg.out}")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train a MaskablePPO agent (opponents, self-play, evaluation, checkpoints)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(GAMES), default=DEFAULTS.game)
    p.add_argument("--engine", choices=("sb3", "rllib"), default=DEFAULTS.engine,
                   help="sb3: MaskablePPO in this process (default); rllib: RLlib's PPO on Ray, a local Ray or the "
                        "cluster at RAY_ADDRESS (extra cardgym[rllib]; no imitation, self-play or league)")
    p.add_argument("--env-runners", type=count(MAX_WORKERS), default=DEFAULTS.env_runners, metavar="N",
                   help=f"with --engine rllib: RLlib env runners, each stepping tables/N tables (1 to {MAX_WORKERS}; "
                        "default 1)")
    p.add_argument("--players", type=integer, default=DEFAULTS.players, help="table size (default 4)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a rule option of the game (repeatable)")
    p.add_argument("--opponents", default=DEFAULTS.opponents,
                   help=f"opponent pool: comma-separated specs ({SPEC_HELP}), each optionally spec=weight, "
                        "e.g. heuristic=3,random=1; styles:N=W, careless-styles:N=W and careless-bots:N=W put N "
                        "members of a family (agents.styles) in the pool, sharing the weight W (N from 1 to "
                        f"{MAX_FAMILY_MEMBERS}; default heuristic)")
    p.add_argument("--whole-table", type=float, default=DEFAULTS.whole_table, metavar="Q",
                   help="share of tables where one pool draw plays every opponent seat (default 0: one draw per seat)")
    p.add_argument("--selfplay", action="store_true",
                   help="add frozen snapshots of the learner to the opponent pool (self-play)")
    p.add_argument("--selfplay-every", type=count(MAX_STEPS), default=DEFAULTS.selfplay_every, metavar="N",
                   help=f"learner decisions between self-play snapshots (1 to {MAX_STEPS:,}; default "
                        f"{DEFAULTS.selfplay_every:,})")
    p.add_argument("--selfplay-share", type=non_negative_float, default=DEFAULTS.selfplay_share, metavar="S",
                   help=f"share of opponent seats given to the snapshots (default {DEFAULTS.selfplay_share})")
    p.add_argument("--league", action="store_true",
                   help="re-weight the opponent pool towards the members the learner is furthest from beating "
                        "(prioritised fictitious self-play; every evaluation then covers every member)")
    p.add_argument("--league-by", choices=LEAGUE_MEASURES, default=DEFAULTS.league_by,
                   help="with --league: measure how far the learner is from beating a member by its share of the "
                        "chips (points) at stake where its results and the heuristic's differ (stakes, the default) "
                        "or of the deals where they differ (deals)")
    p.add_argument("--league-power", type=positive_float, default=DEFAULTS.league_power, metavar="P",
                   help="with --league: a member's seats go as (1 - the learner's share ahead of it)^P; larger P "
                        f"moves them more sharply to the members it handles worst (default {DEFAULTS.league_power:g})")
    p.add_argument("--league-floor", type=positive_float, default=DEFAULTS.league_floor, metavar="F",
                   help="with --league: the least share of its prior weight a member keeps, however well the learner "
                        f"does (0 < F <= 1; default {DEFAULTS.league_floor:g})")
    p.add_argument("--imitate", type=count(MAX_STEPS, low=0), default=DEFAULTS.imitate, metavar="N",
                   help=f"clone the teacher on N of its decisions before PPO (0 to {MAX_STEPS:,}, and at most half "
                        "the time budget; 0: no)")
    p.add_argument("--imitate-teacher", default=DEFAULTS.imitate_teacher, metavar="SPEC",
                   help="the agent cloned by --imitate (default heuristic)")
    p.add_argument("--steps", type=count(MAX_STEPS), default=DEFAULTS.total_steps,
                   help=f"learner decisions to train for (1 to {MAX_STEPS:,}; default {DEFAULTS.total_steps:,})")
    p.add_argument("--minutes", type=number_upto(MAX_MINUTES), default=DEFAULTS.time_budget / 60,
                   help=f"time budget of the training in minutes (0 to {MAX_MINUTES:,g}; 0: none; the final "
                        "evaluation comes on top)")
    p.add_argument("--seed", type=seed32_int, default=DEFAULTS.seed,
                   help="seed of the tables, the network and the evaluations (0 to 2**32 - 1; default 0)")
    p.add_argument("--out", default=None, help="output folder (default runs/GAME)")
    p.add_argument("--tables", type=count(MAX_TABLES), default=DEFAULTS.tables,
                   help=f"tables stepped at once (1 to {MAX_TABLES:,}; default {DEFAULTS.tables})")
    p.add_argument("--reward-scale", type=non_negative_float, default=DEFAULTS.reward_scale, metavar="X",
                   help=f"rewards handed to PPO are the game's returns times X (default {DEFAULTS.reward_scale}: "
                        "chips; about 1 suits games whose returns are a few units)")
    p.add_argument("--learning-rate", type=positive_float, default=DEFAULTS.learning_rate, metavar="LR",
                   help=f"PPO's learning rate (default {DEFAULTS.learning_rate})")
    p.add_argument("--anneal-lr", type=float, default=DEFAULTS.anneal_lr, metavar="SHARE",
                   help="decay the learning rate linearly to 0 over this last share of the training (of its steps "
                        "or its time budget, whichever ends it first; default 0: a constant rate)")
    p.add_argument("--ent-coef", type=non_negative_float, default=DEFAULTS.ent_coef, metavar="C",
                   help=f"PPO's entropy bonus (default {DEFAULTS.ent_coef})")
    p.add_argument("--hints", action="store_true",
                   help="give the policy the game's hint features as extra inputs (agents.hints; Tripoli: hand "
                        "strength, equity, pot odds; Flip Flop: its total against the opponents' estimated "
                        "totals)")
    p.add_argument("--anchor", choices=ANCHORS, default=None,
                   help="anchor the policy to this agent (heuristic; in Flip Flop also reader, the heuristic with a "
                        "drop that reads the table): its logits are the network's plus --anchor-weight on the "
                        "agent's action, so PPO learns a residual on the agent's play (agents.anchor)")
    p.add_argument("--anchor-weight", type=positive_float, default=DEFAULTS.anchor_weight, metavar="W",
                   help=f"with --anchor: the logit bonus of the anchor's action (default {DEFAULTS.anchor_weight})")
    p.add_argument("--anchor-weight-on", type=kind_weight, action="append", metavar="KIND=W",
                   help="with --anchor: the bonus W where the anchor's action is of this kind (an action's name up "
                        "to its first card or number, e.g. \"draw stock=1.5\"), instead of --anchor-weight; repeatable")
    p.add_argument("--eval-every", type=count(MAX_STEPS), default=DEFAULTS.eval_every,
                   help=f"learner decisions between evaluations against the heuristic (1 to {MAX_STEPS:,}; default "
                        f"{DEFAULTS.eval_every:,})")
    p.add_argument("--eval-deals", type=count(MAX_DEALS), default=DEFAULTS.eval_deals,
                   help=f"deals of each periodic evaluation (1 to {MAX_DEALS:,}; default {DEFAULTS.eval_deals:,})")
    p.add_argument("--background-eval", action="store_true",
                   help="play the periodic evaluations in a second process while PPO trains on (the same results, "
                        "used one evaluation later; on a machine with a core to spare, more training in the budget)")
    p.add_argument("--final-deals", type=count(MAX_DEALS), default=DEFAULTS.final_deals,
                   help=f"deals of the closing evaluation in each field (1 to {MAX_DEALS:,}; default "
                        f"{DEFAULTS.final_deals:,})")
    p.add_argument("--fields", default=DEFAULTS.fields, metavar="SPECS",
                   help="fields of the closing table: comma-separated agent specs, each played by players-1 copies; "
                        "zoo: every bot of the game; heldout: styles no training pool names (agents.heldout) "
                        "(default zoo,heldout)")
    p.add_argument("--snapshot-fields", type=count(MAX_SNAPSHOT_FIELDS, low=0), default=DEFAULTS.snapshot_fields,
                   metavar="K", help=f"earlier snapshots of the learner added to the closing table's fields (0 to "
                                     f"{MAX_SNAPSHOT_FIELDS}; default {DEFAULTS.snapshot_fields})")
    p.add_argument("--keep", choices=KEEP_RULES, default=DEFAULTS.keep,
                   help="the policy saved as model.zip and closed on: the last one (default), or the best periodic "
                        "evaluation of the second half by its worst opponent family, among those that beat the "
                        "heuristic (training.keep; the last one is then saved as last.zip too)")
    p.add_argument("--checkpoint-every", type=count(MAX_STEPS), default=DEFAULTS.checkpoint_every,
                   help=f"learner decisions between checkpoints (1 to {MAX_STEPS:,}; default "
                        f"{DEFAULTS.checkpoint_every:,})")
    p.add_argument("--resume", default=None, metavar="ZIP", help="continue from a checkpoint or model")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
