"""``iam uci``: run the search as a UCI chess engine on standard input and output."""

from __future__ import annotations

import argparse

from iam.errors import IAMError
from iam.predictors import load_predictor
from search.chess.uci import main


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "uci",
        help="play as a UCI chess engine (for GUIs and match runners)",
        description="Speak the UCI protocol on stdin/stdout: alpha-beta with move "
        "ordering, quiescence and a transposition table, material and piece-square "
        "evaluation. With --model, the search is guided by the opponent model at the "
        "modelled player's nodes (likely moves searched early and deeper, moves the model "
        "rules out shallower; see search.omsearch.Guidance); the engine's own moves are "
        "always searched plainly.",
    )
    parser.add_argument("--model", metavar="MODEL", help="opponent model file written by 'iam train'")
    parser.add_argument(
        "--engine", metavar="PATH", help="the UCI engine a move ranker with engine evidence runs (a model file never names one)"
    )
    parser.add_argument(
        "--player-color",
        choices=("white", "black"),
        help="the colour of the modelled player (default: the engine's opponent at each move; "
        "when the engine moves for this colour, it searches without the model)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.player_color and not args.model:
        raise IAMError("--player-color needs --model")
    if args.model is None:
        return main()

    model = load_predictor(args.model, engine=args.engine)
    color = None if args.player_color is None else (args.player_color == "white")
    return main(model, predictor_name=f"a model of {model.player_}", modelled_color=color)
