"""``iam uci``: run the search as a UCI chess engine on standard input and output; ``iam play``: a game in the
terminal against the engine that imitates a player.

The engine answers ``uci`` before the compiled core and the model's libraries have
loaded (:mod:`search.chess.uci.startup`), so this module imports at its top only what
its options and that answer need; the rest is imported where it is used.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

import chess

from iam.cli import number_or_infinity
from iam.errors import IAMError
from iam.games.pgntext import typed_move
from search.chess.imitation import CHECK_ENGINE_DEPTH, RATE_POSITIONS, Imitation, MoveJudge
from search.chess.uci.identity import EngineModel, JudgeLoader, ModelLoader, piece_values_text
from search.chess.uci.startup import main
from search.opponent.exploitation import DEFAULT_MARGIN, DEFAULT_THRESHOLD, Exploitation
from search.opponent.predictor import MovePredictor, abilities_of

if TYPE_CHECKING:
    from iam.engines.check import EngineJudge
    from iam.runtime import Runtime
    from search.chess.exploit import ExploitingSettings
    from search.chess.uci import UciEngine


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "uci",
        help="play as a UCI chess engine (for GUIs and match runners)",
        description="Speak the UCI protocol on stdin/stdout: alpha-beta with move "
        "ordering, quiescence and a transposition table, material and piece-square "
        "evaluation. With --model, the search is guided by the opponent model at the "
        "modelled player's nodes (likely moves searched early and deeper, moves the model "
        "rules out shallower; see search.opponent.omsearch.Guidance); the engine's own moves are "
        "always searched plainly. With --model and --exploit W, the engine values its "
        "moves by a blend of their minimax value and the value of the replies the model "
        "expects (weight W; 0 is minimax). With --imitate MODEL it plays as the modelled "
        "player: his move drawn from the model's beliefs (UCI options Temperature, Seed, Strength, "
        "BlunderRate), a move losing 2 pawns or more only within his own rate of such moves (judged by "
        "--check-engine, UCI option CheckEngine, when given), a short search where the model is unsure in a "
        "tactical position.",
    )
    parser.add_argument("--model", metavar="MODEL", help="opponent model file written by 'iam train'")
    _add_exploit_options(parser)
    parser.add_argument(
        "--book", metavar="FILE",
        help="a polyglot opening book (such as the book.bin of 'iam prepare'): its most weighted move is played "
        "where it has the position (UCI option OwnBook turns it off)",
    )
    parser.add_argument(
        "--piece-values", metavar="P,N,B,R,Q",
        help="the compiled search's material: five centipawn values, pawn to queen, in both phases (such as "
        "those 'iam evolve' finds; UCI option PieceValues; default: the evaluation's own)",
    )
    _add_imitation_options(parser)
    _add_model_file_options(parser)
    parser.set_defaults(run=run)


def _add_exploit_options(parser: argparse.ArgumentParser) -> None:
    """The options of the exploiting search: its blend weight and what bounds and shapes it."""
    parser.add_argument(
        "--exploit", type=float, metavar="W",
        help="with --model: choose moves by (1-W) * minimax + W * the belief-weighted value of the replies",
    )
    parser.add_argument(
        "--exploit-share", type=float, default=0.35, metavar="A",
        help="with --exploit: the most of each move's budget the probes of his likely replies may use "
        "(they get what the plain search would leave unused; default 0.35)",
    )
    parser.add_argument(
        "--exploit-margin", type=number_or_infinity, default=DEFAULT_MARGIN, metavar="CP",
        help="with --exploit: a move may replace the plain search's only if its deep value is within CP "
        f"centipawns of the plain move's ('inf': no bound but the weight; default {DEFAULT_MARGIN:g})",
    )
    parser.add_argument(
        "--exploit-threshold", type=float, default=DEFAULT_THRESHOLD, metavar="CP",
        help="with --exploit: a reply counts as the player's error only by what it gives away beyond CP "
        f"centipawns against his best reply (default {DEFAULT_THRESHOLD:g})",
    )
    parser.add_argument(
        "--exploit-contempt", type=float, default=0.0, metavar="C",
        help="with --exploit: a draw costs the engine C times the player's mean expected error per move "
        "so far in the game, as the model sees it (at most 100 cp; default 0: a draw is worth 0)",
    )
    parser.add_argument(
        "--exploit-reduce", type=float, default=0.0, metavar="P",
        help="with --exploit: inside the search, the player's quiet moves his model's cheap reply policy "
        "believes less than P are searched a ply shallower first (default 0: none)",
    )


def _add_imitation_options(parser: argparse.ArgumentParser) -> None:
    """The options of playing like the player: his model file and how its moves are drawn."""
    parser.add_argument("--imitate", metavar="MODEL", help="play like the player of this model file")
    parser.add_argument(
        "--sample-temperature", type=float, default=Imitation().temperature, metavar="T",
        help="with --imitate: 1 draws his moves from his beliefs (default), 0 plays the most believed move",
    )
    parser.add_argument("--temperature", type=float, dest="old_temperature", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help="with --imitate: seed of the draws (default 0)")
    parser.add_argument(
        "--unsure-below", type=float, default=Imitation().unsure_below, metavar="P",
        help="with --imitate: a most-believed move below P leaves a tactical position to the search "
        f"(default {Imitation().unsure_below:g})",
    )
    parser.add_argument(
        "--strength", type=float, default=0.0, metavar="S",
        help="with --imitate: how much the search overrides his beliefs, 0 (his beliefs alone, default) to 1 "
        "(the search's choice); his moves are drawn from (1-S) * belief + S * a softmax of the search's scores",
    )
    parser.add_argument(
        "--blunder-rate", type=float, metavar="R",
        help="with --imitate: the share of moves losing 2 pawns or more the engine may play (default: his rate as "
        "a move ranker records it, or by --check-engine; 1: no ceiling); a drawn move beyond it is drawn again "
        "among the others",
    )
    add_check_options(parser)


def add_check_options(parser: argparse.ArgumentParser) -> None:
    """The options of judging the imitation's drawn moves with a UCI engine (``iam uci --imitate``, ``iam play``)."""
    parser.add_argument(
        "--check-engine", metavar="PATH",
        help="with --imitate: a UCI engine (such as stockfish) judges each drawn move, and his blunder rate is "
        f"measured by the same engine on {RATE_POSITIONS} positions of his training games at the start (kept in a "
        "file beside the model, MODEL.check-rates.json); default: the engine's own search checks the moves",
    )
    parser.add_argument(
        "--check-depth", type=int, default=CHECK_ENGINE_DEPTH, metavar="D",
        help=f"with --check-engine: the depth of its searches of a drawn move (default {CHECK_ENGINE_DEPTH}), "
        "within 40%% of the move's time",
    )
    parser.add_argument(
        "--check-games", metavar="PGN",
        help="with --check-engine: the file of his games the model was fitted on (default: the bundled file of "
        "the player)",
    )


def _add_model_file_options(parser: argparse.ArgumentParser) -> None:
    """The options on how a model file is used: the engine it may run and the colour it models."""
    parser.add_argument(
        "--engine", metavar="PATH",
        help="the UCI engine a move ranker with engine evidence runs (a model file never names one)",
    )
    parser.add_argument(
        "--player-color",
        choices=("white", "black"),
        help="the colour of the modelled player (default: the engine's opponent at each move; "
        "when the engine moves for this colour, it searches without the model)",
    )


def run(args: argparse.Namespace) -> int:
    if args.old_temperature is not None:
        print(
            "iam: note: --temperature is renamed --sample-temperature (the old name goes in the next version)",
            file=sys.stderr,
        )
        args.sample_temperature = args.old_temperature
    _check_model_options(args)
    _check_exploit_options(args)
    exploitation, imitation = _search_settings(args)
    try:
        values = None if args.piece_values is None else piece_values_text(args.piece_values)
    except ValueError as exc:
        raise IAMError(str(exc).replace("PieceValues", "--piece-values")) from None
    if args.book is not None:
        check_book(args.book)
    path = args.imitate or args.model
    if path is None:
        return main(EngineModel(loader=_loader_of(args)), book=args.book, piece_values=values)
    from iam.models.files import MODEL_FORMATS, read_header

    color = None if args.player_color is None else (args.player_color == "white")
    header = read_header(path)
    model: MovePredictor | None = None
    if header is None or header.format not in MODEL_FORMATS or header.player is None or args.exploit_reduce:
        model, name = _load_model(args, path)  # what is wrong with the file, or the options, said at once
        pending = None
    else:  # the name from the file's first bytes; the model is read while the engine answers uci
        name, pending = f"a model of {header.player}", (lambda: _load_model(args, path)[0])

    def settings() -> ExploitingSettings:  # built with the engine: its module loads the compiled core
        from search.chess.exploit import ExploitingSettings

        return ExploitingSettings(
            appraisal_share=args.exploit_share, contempt=args.exploit_contempt, reduce_below=args.exploit_reduce
        )

    engine_model = EngineModel(
        model, name=name, modelled_color=color, loader=_loader_of(args),
        file=path, pending=pending, check_engine=args.check_engine or "",
        judge_loader=judge_loader(args, path) if args.imitate else None,
    )
    return main(engine_model, exploitation=exploitation, exploit_settings=settings, imitation=imitation, book=args.book,
                piece_values=values)


def _load_model(args: argparse.Namespace, path: str) -> tuple[MovePredictor, str]:
    """The model of ``path`` for the engine and the name it goes by (IAMError when it cannot serve the options
    given)."""
    from iam.cli._common import command_runtime
    from iam.measure.predictors import load_predictor

    model = load_predictor(path, runtime=command_runtime(args))
    if getattr(args, "exploit_reduce", 0) and abilities_of(model).reply_policy is None:
        raise IAMError(f"--exploit-reduce needs a move ranker fitted with a reply policy; {path} has none (refit it)")
    return model, f"a model of {model.player_}"


def _check_model_options(args: argparse.Namespace) -> None:
    """IAMError when the options naming model files, or those needing one, do not go together."""
    if args.player_color and not args.model:
        raise IAMError("--player-color needs --model")
    if args.exploit is not None and not args.model:
        raise IAMError("--exploit needs --model (the model of the opponent to exploit)")
    if args.exploit is not None and args.player_color:
        raise IAMError("--exploit models the engine's opponent at every move; leave out --player-color")
    if args.imitate and args.model:
        raise IAMError("give either --model (search against the player) or --imitate (play like him)")
    _check_check_options(args, args.imitate)
    default = Imitation()
    if args.imitate is None and (
        args.sample_temperature != default.temperature or args.seed != 0 or args.unsure_below != default.unsure_below
        or args.strength != default.strength or args.blunder_rate is not None
    ):
        raise IAMError("--sample-temperature, --seed, --unsure-below, --strength and --blunder-rate need --imitate")


def _check_check_options(args: argparse.Namespace, model: str | None) -> None:
    """IAMError when the check engine's options are wrong: given without a model to imitate, a depth below 1, an
    engine that is not there, or his games not to be found."""
    if (args.check_engine or args.check_games or args.check_depth != CHECK_ENGINE_DEPTH) and not model:
        raise IAMError("--check-engine, --check-depth and --check-games need --imitate")
    if not args.check_engine:
        if args.check_games or args.check_depth != CHECK_ENGINE_DEPTH:
            raise IAMError("--check-depth and --check-games need --check-engine")
        return
    if args.check_depth < 1:
        raise IAMError(f"--check-depth takes a depth of at least 1, not {args.check_depth}")
    from iam.engines.analysis import _locate

    _locate(args.check_engine)  # an EngineError (one line) when there is no such engine
    if args.check_games is not None and not Path(args.check_games).is_file():
        raise IAMError(f"--check-games: no such file {args.check_games}")


def judge_loader(args: argparse.Namespace, model_file: str) -> JudgeLoader:
    """Makes the check engine at a path the judge of the imitation's drawn moves: started, and his blunder rate by
    it read from beside ``model_file`` or measured on his training games (unless ``--blunder-rate`` sets the rate).
    A problem is a ValueError (one line)."""

    def load(path: str, predictor: MovePredictor) -> MoveJudge:
        import atexit

        from iam.engines.check import EngineJudge, cached_judged_rate

        judge = EngineJudge(path, depth=args.check_depth)
        atexit.register(judge.close)
        try:
            judge.start()
            if args.blunder_rate is None:
                games = his_training_games(predictor, args.check_games)
                cache = Path(f"{model_file}.check-rates.json")
                if not cache.exists():
                    print(f"iam: measuring his blunder rate by {judge.name} on his training positions (kept in "
                          f"{cache})", file=sys.stderr, flush=True)
                judge.rate = cached_judged_rate(judge, games, cache)
        except (IAMError, OSError) as exc:
            judge.close()
            raise ValueError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
        return judge

    return load


def his_training_games(model: MovePredictor, games_file: str | None) -> list:
    """The games of ``games_file`` (default: the bundled file of the model's player) the model was fitted on (its
    training split when it does not record them); IAMError when there are none."""
    from iam.games.bundled import bundled_pgn
    from iam.games.pgn import load_player_games

    player = str(getattr(model, "player_", ""))
    surname = player.split(",")[0].strip()  # "Botvinnik, Mikhail": the bundled file of Botvinnik, his every name
    try:
        source = games_file if games_file is not None else str(bundled_pgn(surname))
    except IAMError:
        raise IAMError(f"{player}'s games are not bundled: give his games with --check-games PGN") from None
    games, _ = load_player_games([source], player=surname or player)
    record = getattr(model, "training_games_", None)
    chosen = record.among(games) if record is not None else [game for game in games if game.split == "train"]
    if not chosen:
        raise IAMError(f"none of {player}'s games in {source} are the model's training games")
    return chosen


def _check_exploit_options(args: argparse.Namespace) -> None:
    """IAMError for an ``--exploit-*`` value out of range, or given without ``--exploit``."""
    if not 0 < args.exploit_share < 1:
        raise IAMError(f"--exploit-share takes a share between 0 and 1, not {args.exploit_share:g}")
    if not 0 <= args.exploit_contempt < float("inf"):
        raise IAMError(f"--exploit-contempt takes a finite number at least 0, not {args.exploit_contempt:g}")
    if args.exploit_contempt and args.exploit is None:
        raise IAMError("--exploit-contempt needs --exploit")
    if not 0 <= args.exploit_reduce < 1:
        raise IAMError(f"--exploit-reduce takes a belief in [0, 1), not {args.exploit_reduce:g}")
    if args.exploit_reduce and args.exploit is None:
        raise IAMError("--exploit-reduce needs --exploit")


def _search_settings(args: argparse.Namespace) -> tuple[Exploitation | None, Imitation | None]:
    """The exploiting search's and the imitation's settings from the options (IAMError when wrong)."""
    try:
        exploitation = (
            Exploitation(weight=args.exploit, margin=args.exploit_margin, threshold=args.exploit_threshold)
            if args.exploit is not None else None
        )
        imitation = (
            Imitation(
                temperature=args.sample_temperature, seed=args.seed, unsure_below=args.unsure_below,
                strength=args.strength, blunder_rate=args.blunder_rate,
            )
            if args.imitate else None
        )
    except ValueError as exc:
        raise IAMError(str(exc)) from None
    return exploitation, imitation


def check_book(path: str) -> None:
    """IAMError (one line) unless ``path`` is a readable polyglot book: whole 16-byte entries, at least one."""
    import chess.polyglot

    try:
        size = Path(path).stat().st_size
        if size == 0 or size % 16:
            raise IAMError(
                f"{path} is not a polyglot opening book (its size, {size} bytes, is not a whole number of entries)"
            )
        with chess.polyglot.open_reader(path) as reader:
            len(reader)
    except OSError as exc:
        raise IAMError(f"cannot read the book {path}: {exc.strerror or exc}") from None


def _loader_of(args: argparse.Namespace) -> ModelLoader:
    """:func:`model_loader` with the runtime of ``args``, built at the first model file it reads: the plain
    engine's start does not wait for the model libraries."""

    def load(path: str) -> tuple[MovePredictor, str]:
        from iam.cli._common import command_runtime

        return model_loader(command_runtime(args))(path)

    return load


def model_loader(runtime: Runtime | None) -> ModelLoader:
    """What the engine's ``ModelFile`` option reads a model file with: a problem is a ValueError (one line)."""
    from iam.measure.predictors import load_predictor

    def load(path: str) -> tuple[MovePredictor, str]:
        try:
            model = load_predictor(path, runtime=runtime)
        except (IAMError, OSError) as exc:
            raise ValueError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
        return model, f"a model of {model.player_}"

    return load


PLAY_HELP = "play a game in the terminal against the imitation of a player (his sparring partner)"


def register_play(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "play",
        help=PLAY_HELP,
        description="A game against the engine of 'iam uci --imitate MODEL', in the terminal: type your moves in "
        "SAN (Nf3) or UCI (g1f3); the partner answers with his move drawn from the model's beliefs, his openings "
        "as his games draw them, a blunder only within his own rate. Type 'board' to see the board, 'resign' to "
        "resign, 'quit' (or end the input) to stop.",
    )
    parser.add_argument("model", metavar="MODEL", help="the model file of the player to play against")
    parser.add_argument("--color", choices=("white", "black"), default="white", help="your colour (default white)")
    parser.add_argument("--seed", type=int, default=0, help="seed of his draws: the same seed, the same game for "
                        "the same moves (default 0)")
    parser.add_argument("--movetime", type=int, default=1000, metavar="MS",
                        help="his time a move, in milliseconds (default 1000)")
    parser.add_argument("--strength", type=float, default=0.0, metavar="S",
                        help="how much the search overrides his beliefs, 0 to 1 (default 0; see 'iam uci --help')")
    parser.add_argument("--blunder-rate", type=float, metavar="R",
                        help="his share of moves losing 2 pawns or more allowed (default: the model's)")
    parser.add_argument("--engine", metavar="PATH", help="the UCI engine a move ranker with engine evidence runs")
    add_check_options(parser)
    parser.set_defaults(run=run_play)


def run_play(args: argparse.Namespace) -> int:
    if args.movetime < 1:
        raise IAMError(f"--movetime takes at least 1 millisecond, not {args.movetime}")
    try:
        imitation = Imitation(seed=args.seed, strength=args.strength, blunder_rate=args.blunder_rate)
    except ValueError as exc:
        raise IAMError(str(exc)) from None
    _check_check_options(args, args.model)
    model, name = _load_model(args, args.model)
    from search.chess.uci import UciEngine

    judge: EngineJudge | None = None
    if args.check_engine:
        try:
            judge = cast("EngineJudge", judge_loader(args, args.model)(args.check_engine, model))
        except ValueError as exc:
            raise IAMError(str(exc)) from None
    output = io.StringIO()
    engine = UciEngine(output=output, model=EngineModel(model, name=name, judge=judge), imitation=imitation)
    try:
        return play_game(_Partner(engine, output), user=chess.WHITE if args.color == "white" else chess.BLACK,
                         movetime=args.movetime, name=name)
    finally:
        if judge is not None:
            judge.close()


class _Partner:
    """The imitating engine asked for its move over the UCI commands it understands."""

    def __init__(self, engine: UciEngine, output: io.StringIO) -> None:
        self.engine = engine
        self.output = output

    def move(self, board: chess.Board, movetime: int) -> chess.Move:
        output = self.output
        output.seek(0)
        output.truncate()
        moves = " ".join(move.uci() for move in board.move_stack)
        self.engine.run([f"position startpos moves {moves}".strip(), f"go movetime {movetime}"])
        answer = next(line for line in reversed(output.getvalue().splitlines()) if line.startswith("bestmove "))
        return chess.Move.from_uci(answer.split()[1])


def play_game(partner: _Partner, *, user: chess.Color, movetime: int, name: str) -> int:
    """The game in the terminal, on standard input and output, until it ends, the user resigns or quits."""
    board = chess.Board()
    print(f"You play {'White' if user == chess.WHITE else 'Black'} against {name}. Moves in SAN or UCI; "
          "'board', 'resign', 'quit'.")
    while not board.is_game_over(claim_draw=True):
        if board.turn != user:
            move = partner.move(board, movetime)
            print(f"{_numbered(board)}{board.san(move)}", flush=True)
            board.push(move)
            continue
        text = _ask(board)
        if text is None or text == "quit":
            print("Game left unfinished.")
            return 0
        if text == "resign":
            print(f"You resign: {'0-1' if user == chess.WHITE else '1-0'}.")
            return 0
        if text == "board":
            print(board)
            continue
        typed = typed_move(board, text)
        if typed is None:
            legal = ", ".join(sorted(board.san(legal) for legal in board.legal_moves))
            print(f"Not a legal move here: {text} (legal: {legal})")
            continue
        board.push(typed)
    outcome = board.outcome(claim_draw=True)
    print(f"Game over: {board.result(claim_draw=True)}" + (f" ({outcome.termination.name.lower()})" if outcome else ""))
    return 0


def _numbered(board: chess.Board) -> str:
    return f"{board.fullmove_number}. " if board.turn == chess.WHITE else f"{board.fullmove_number}... "


def _ask(board: chess.Board) -> str | None:
    """The user's next word (None at the end of the input)."""
    try:
        return input(f"{_numbered(board)}your move: ").strip()
    except EOFError:
        return None
