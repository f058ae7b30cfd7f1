"""The opponent model: IAM as a scikit-learn style estimator.

``OpponentModel().fit(games)`` learns one player's chunk library, rote memory and
belief from :class:`~iam.pgn.PlayerGame` records (see :func:`iam.pgn.load_player_games`);
``predict_proba(board)`` gives, for the side to move on a ``chess.Board``, a
belief per candidate move; ``predict`` ranks the moves; ``explain`` says why.

The board's move stack is used when present: the rote memory follows the game's
moves from its start, and the dissolved-pattern rule looks at the position
before the player's previous move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import chess
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from iam.belief import LearnedBelief, RuleWeights, learn_belief, rule_beliefs
from iam.board import planes_from_bitboards
from iam.collector import ChunkOccurrences, collect
from iam.features import COUNT_COLUMNS, FEATURES, CandidateRows, ChunkFacts, candidate_rows, eligible
from iam.library import ChunkLibrary
from iam.noise_filter import RESULT_CODES, chunk_statistics, move_bin, noise_filter
from iam.partial import Completions, find_completions
from iam.pgn import PlayerGame
from iam.replay import PlayerMoves, player_move_count, replay
from iam.rote import RoteEntry, RoteMemory

__all__ = ["OpponentModel"]

_BELIEFS = ("learned", "rules")
_FIT_STEPS = ("replay", "chunks", "library and rote memory", "belief sample", "belief fit")


class OpponentModel(BaseEstimator):
    """A model of one chess player: chunk library, rote memory and belief.

    Parameters
    ----------
    min_games:
        Noise filter: a chunk (or a remembered move sequence) is kept only if it
        occurs in at least this many different games.
    min_formed_games:
        A stored chunk proposes moves only if the player formed it by a move in
        at least this many games.
    rote_max_ply:
        The rote memory remembers sequences of at most this many plies.
    belief:
        ``"learned"`` (weights and calibration learned from the training games)
        or ``"rules"`` (seed 001's heuristics with ``rule_weights``).
    rule_weights:
        Weights of the seed's heuristics (:class:`~iam.belief.RuleWeights`).
    belief_positions:
        How many training positions (sampled) the learned belief is fitted on.
    random_state:
        Seed of the position sample.
    player:
        Name of the modelled player (a label; inferred from the games if None).
    """

    def __init__(
        self,
        *,
        min_games: int = 2,
        min_formed_games: int = 2,
        rote_max_ply: int = 30,
        belief: str = "learned",
        rule_weights: RuleWeights | None = None,
        belief_positions: int = 1000,
        random_state: int = 0,
        player: str | None = None,
    ) -> None:
        self.min_games = min_games
        self.min_formed_games = min_formed_games
        self.rote_max_ply = rote_max_ply
        self.belief = belief
        self.rule_weights = rule_weights
        self.belief_positions = belief_positions
        self.random_state = random_state
        self.player = player

    # -- learning ---------------------------------------------------------------

    def fit(self, games: Iterable[PlayerGame], y: None = None, *, progress=None) -> OpponentModel:
        """Learn the model from the player's games; returns ``self``.

        ``progress`` optionally wraps an iterable of the fitting steps (a progress
        bar such as ``tqdm``); fitting advances it once per step.
        """
        games = list(games)
        self._check_parameters()
        if not games:
            raise ValueError("cannot fit an opponent model on no games")
        if not all(isinstance(game, PlayerGame) for game in games):
            raise TypeError("fit expects PlayerGame records (see iam.pgn.load_player_games)")
        steps = _FIT_STEPS if self.belief == "learned" else _FIT_STEPS[:3]
        step = iter(progress(steps) if progress is not None else steps)
        next(step)  # replaying the games
        # The learned belief's sample is drawn first, so that one replay also keeps its boards.
        picked = self._pick_sample(player_move_count(games)) if self.belief == "learned" else None
        moves = replay(games, keep=picked)
        if len(moves) == 0:
            raise ValueError("the games contain no move of the modelled player")
        next(step)  # collecting chunks
        occurrences = collect(planes_from_bitboards(moves.bitboards), moved_to=moves.moved_to)
        statistics = chunk_statistics(occurrences, moves.info)
        filtered = noise_filter(statistics, min_games=self.min_games)
        table = filtered[filtered["formed_games"] >= self.min_formed_games]

        self.player_ = self.player or _most_common_name(games)
        self.n_games_ = len(games)
        self.n_positions_ = len(moves)
        white = sum(game.color == chess.WHITE for game in games)
        self.colors_ = {"white": int(white), "black": len(games) - int(white)}
        self.chunk_counts_ = {
            "occurrences": int(len(occurrences)),
            "distinct": int(len(statistics)),
            "after_noise_filter": int(len(filtered)),
            "stored": int(len(table)),
        }
        next(step)  # the library and the rote memory
        self.library_ = ChunkLibrary.from_table(table)
        self.rote_ = RoteMemory.learn(games, max_ply=self.rote_max_ply, min_games=self.min_games)
        self.rule_weights_ = self.rule_weights or RuleWeights()
        self.belief_ = None
        self.belief_kind_ = self.belief
        self.notes_: list[str] = []
        if len(table) == 0:
            self.notes_.append(
                f"no chunk passed the filters (seen in >= {self.min_games} games, formed by a move in "
                f">= {self.min_formed_games} games): only the rote memory can predict"
            )
        self.facts_ = self._facts(table, len(games))
        if self.belief == "learned":
            next(step)  # the belief's sample of training positions
            sample = self._sample(games, moves, occurrences, picked)
            record = _CompletionRecord(sample, len(table))
            table = table.assign(completed=record.completed, opportunities=record.opportunities)
            self.library_ = replace(self.library_, table=table)
            self.facts_ = self._facts(table, len(games))
            next(step)  # fitting the belief
            rows, played, position, game = self._training_rows(sample, record)
            try:
                self.belief_ = learn_belief(rows, played, position, game, random_state=self.random_state)
            except ValueError as exc:
                self.belief_kind_ = "rules"
                self.notes_.append(f"learned belief unavailable ({exc}); using the seed's rules")
        next(step, None)  # lets a progress bar show the last step done
        return self

    def _check_parameters(self) -> None:
        """ValueError for a parameter of the wrong type or range (not sklearn's ``_validate_params``)."""
        if self.belief not in _BELIEFS:
            raise ValueError(f"belief must be one of {_BELIEFS}, not {self.belief!r}")
        for name in ("min_games", "min_formed_games", "rote_max_ply", "belief_positions"):
            value = getattr(self, name)
            lowest = 0 if name == "min_formed_games" else 1
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lowest:
                kind = "a non-negative" if lowest == 0 else "a positive"
                raise ValueError(f"{name} must be {kind} integer, not {value!r}")
        state = self.random_state
        if state is not None and (
            isinstance(state, bool) or not isinstance(state, (int, np.integer)) or not 0 <= state < 2**32
        ):
            raise ValueError(f"random_state must be an integer from 0 to 2**32 - 1 or None, not {state!r}")
        if self.player is not None and not isinstance(self.player, str):
            raise ValueError(f"player must be a name or None, not {self.player!r}")
        if self.rule_weights is not None and not isinstance(self.rule_weights, RuleWeights):
            raise ValueError(f"rule_weights must be a RuleWeights or None, not {self.rule_weights!r}")

    def _facts(self, table, training_games: int) -> ChunkFacts:
        return ChunkFacts.from_table(
            table,
            training_games=training_games,
            min_games=self.min_games,
            min_formed_games=self.min_formed_games,
        )

    def _pick_sample(self, positions: int) -> np.ndarray:
        """Sorted indices of the training positions the learned belief is fitted on."""
        if positions == 0:
            return np.zeros(0, dtype=np.int64)
        rng = np.random.default_rng(self.random_state)
        return np.sort(rng.choice(positions, size=min(self.belief_positions, positions), replace=False))

    def _sample(
        self, games: list[PlayerGame], moves: PlayerMoves, occurrences: ChunkOccurrences, picked: np.ndarray
    ) -> list[_Sampled]:
        """Run the finder on the sampled training positions, each without its own game."""
        game_ids, plies = moves.game[picked].tolist(), moves.ply[picked].tolist()
        own = _OwnCounts(self.library_, occurrences, moves, games_in=np.unique(moves.game[picked]))
        starts = {game_id: games[game_id].board().epd() for game_id in set(game_ids)}
        sample = []
        for game_id, ply, board in zip(game_ids, plies, moves.kept_boards, strict=True):
            move = games[game_id].moves[ply]
            rote = self.rote_.lookup_moves(starts[game_id], games[game_id].moves[:ply])
            # The game itself added its move to the entry when the position is within the
            # memory's first plies (a sequence entry always is; a position entry then is too).
            own_rote = rote is not None or ply < self.rote_.max_ply
            rote = rote or self.rote_.lookup_position(board)
            completions = find_completions(self.library_, board)
            own_counts = own.lookup(completions.chunk, game_id)
            _, kept = eligible(completions, self.facts_, own_counts)
            played = np.array([candidate == move for candidate in completions.moves], dtype=bool)
            sample.append(
                _Sampled(
                    game=game_id,
                    move=move,
                    move_number=board.fullmove_number,
                    completions=completions,
                    rote=rote,
                    own_rote_move=move.uci() if rote is not None and own_rote else None,
                    own_counts=own_counts,
                    kept=kept,
                    played=played[completions.move] if len(completions) else np.zeros(0, bool),
                )
            )
        return sample

    def _training_rows(
        self, sample: list[_Sampled], record: _CompletionRecord
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Candidate rows of the sampled positions, labels, and position and game ids."""
        blocks, labels, positions, game_ids = [], [], [], []
        for number, item in enumerate(sample):
            rows = candidate_rows(
                item.completions,
                self.facts_,
                item.rote,
                move_number=item.move_number,
                rule_weights=self.rule_weights_,
                own_counts=item.own_counts,
                own_rote_move=item.own_rote_move,
                own_completions=record.own(item.completions.chunk, item.game),
            )
            blocks.append(rows.features)
            labels.append(np.array([candidate == item.move for candidate in rows.moves], dtype=bool))
            positions.append(np.full(len(rows.moves), number))
            game_ids.append(np.full(len(rows.moves), item.game))
        if not blocks:
            return np.zeros((0, len(FEATURES))), np.zeros(0, bool), np.zeros(0, int), np.zeros(0, int)
        return np.concatenate(blocks), np.concatenate(labels), np.concatenate(positions), np.concatenate(game_ids)

    # -- predicting ------------------------------------------------------------

    def candidates(self, board: chess.Board) -> tuple[CandidateRows, np.ndarray]:
        """Candidate rows for the side to move and their beliefs (in the rows' order)."""
        check_is_fitted(self, "library_")
        completions = find_completions(self.library_, board)
        rows = candidate_rows(
            completions,
            self.facts_,
            self.rote_.lookup(board),
            move_number=board.fullmove_number,
            rule_weights=self.rule_weights_,
        )
        if self.belief_ is not None:
            beliefs = self.belief_.beliefs(rows.features)
        else:
            beliefs = rule_beliefs(rows.features)
        return rows, beliefs

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        """Belief per candidate move of the side to move, highest first (absent moves: 0)."""
        rows, beliefs = self.candidates(board)
        order = np.argsort(-beliefs, kind="stable")
        return {rows.moves[i]: float(beliefs[i]) for i in order.tolist() if beliefs[i] > 0.0}

    def context_key(self, board: chess.Board) -> tuple:
        """What besides the position :meth:`predict_proba` depends on, as a hashable value.

        The move number (temporal similarity), the last two moves (the rule that
        eliminates a just-dissolved pattern looks at the board before the player's
        previous move) and, while the game is young enough for the rote memory, the
        moves from the start. Two boards with the same position and the same context key
        get the same beliefs, so a search may cache them by the pair.
        """
        stack = board.move_stack
        recent = tuple(stack[-2:])
        opening = tuple(stack) if len(stack) < self.rote_max_ply else None
        return (board.fullmove_number, recent, opening)

    def predict(self, board: chess.Board, *, top: int | None = None) -> list[chess.Move]:
        """The candidate moves ranked by belief (at most ``top`` of them)."""
        ranked = list(self.predict_proba(board))
        return ranked if top is None else ranked[:top]

    def explain(self, board: chess.Board, *, top: int | None = None):
        """Ranked :class:`~iam.prediction.Prediction` objects saying why each move is believed."""
        from iam.prediction import explain

        return explain(self, board, top=top)

    # -- files ------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the model as versioned JSON (gzip when the name ends in .gz), atomically."""
        from iam.modelfile import save_model

        check_is_fitted(self, "library_")
        save_model(self, path)

    @classmethod
    def load(cls, path: str | Path) -> OpponentModel:
        """Read a model file written by :meth:`save` (raises ModelFileError if it is not one)."""
        from iam.modelfile import load_model

        return load_model(path)


def _most_common_name(games: list[PlayerGame]) -> str:
    names = Counter(game.white if game.color == chess.WHITE else game.black for game in games)
    return names.most_common(1)[0][0] if names else ""


@dataclass(frozen=True)
class _Sampled:
    """A sampled training position: the finder's output, seen without its own game."""

    game: int
    move: chess.Move
    move_number: int
    completions: Completions
    rote: RoteEntry | None
    own_rote_move: str | None
    """The game's own move in ``rote`` (left out of its counts), if the game added it there."""
    own_counts: np.ndarray
    kept: np.ndarray
    """Which proposals a library without this game would make."""
    played: np.ndarray
    """Per proposal, whether its move was the move played."""


class _CompletionRecord:
    """How often each chunk was completed when a move could complete it (sampled positions)."""

    def __init__(self, sample: list[_Sampled], chunks: int) -> None:
        chunk = np.concatenate([s.completions.chunk[s.kept] for s in sample] or [np.zeros(0, np.int64)])
        played = np.concatenate([s.played[s.kept] for s in sample] or [np.zeros(0, bool)])
        game = np.concatenate([np.full(int(s.kept.sum()), s.game) for s in sample] or [np.zeros(0, np.int64)])
        self.completed = np.bincount(chunk, weights=played, minlength=chunks).astype(np.int64)
        self.opportunities = np.bincount(chunk, minlength=chunks).astype(np.int64)
        self._stride = int(game.max(initial=0)) + 1
        self._keys, pair = np.unique(chunk * self._stride + game, return_inverse=True)
        self._completed = np.bincount(pair, weights=played, minlength=len(self._keys))
        self._opportunities = np.bincount(pair, minlength=len(self._keys)).astype(np.float64)

    def own(self, chunk_rows: np.ndarray, game: int) -> tuple[np.ndarray, np.ndarray]:
        """One game's own (completed, opportunities) for each proposal's chunk."""
        wanted = chunk_rows.astype(np.int64) * self._stride + game
        if len(self._keys) == 0:
            return np.zeros(len(wanted)), np.zeros(len(wanted))
        spot = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
        found = self._keys[spot] == wanted
        return np.where(found, self._completed[spot], 0.0), np.where(found, self._opportunities[spot], 0.0)


class _OwnCounts:
    """Each sampled game's own contribution to each stored chunk's counts.

    Subtracting it from the library's counts gives the counts a library built
    without that game would hold (leave-one-game-out training rows).
    """

    def __init__(
        self, library: ChunkLibrary, occurrences: ChunkOccurrences, moves: PlayerMoves, *, games_in: np.ndarray
    ) -> None:
        row = library.rows_of(occurrences.code)
        game = moves.game[occurrences.position]
        chosen = (row >= 0) & np.isin(game, games_in)
        row, game = row[chosen], game[chosen]
        formed, position = occurrences.formed[chosen], occurrences.position[chosen]
        self._stride = int(moves.game.max(initial=0)) + 1
        self._keys, pair = np.unique(row * self._stride + game, return_inverse=True)

        n = len(self._keys)
        column = {name: i for i, name in enumerate(COUNT_COLUMNS)}
        counts = np.zeros((n, len(COUNT_COLUMNS)), dtype=np.int64)
        counts[:, column["occurrences"]] = np.bincount(pair, minlength=n)
        counts[:, column["games"]] = 1
        counts[:, column["formed"]] = np.bincount(pair, weights=formed, minlength=n)
        counts[:, column["formed_games"]] = counts[:, column["formed"]] > 0
        a_position = np.zeros(n, dtype=np.int64)
        a_position[pair] = position  # any board of the game: colour and result are per game
        white, result = moves.info.white[a_position], moves.info.result[a_position]
        counts[:, column["white_games"]] = white
        counts[:, column["black_games"]] = ~white
        for name, code in (("won_games", "win"), ("drawn_games", "draw"), ("lost_games", "loss")):
            counts[:, column[name]] = result == RESULT_CODES[code]
        stage = move_bin(moves.info.move_number[position])
        for b, name in enumerate(name for name in COUNT_COLUMNS if name.startswith("moves_")):
            counts[:, column[name]] = np.bincount(pair, weights=stage == b, minlength=n)
        self._counts = counts

    def lookup(self, chunk_rows: np.ndarray, game: int) -> np.ndarray:
        """Count rows for proposals in ``game`` (zeros where the game does not hold the chunk)."""
        wanted = chunk_rows.astype(np.int64) * self._stride + game
        if len(self._keys) == 0:
            return np.zeros((len(wanted), len(COUNT_COLUMNS)), dtype=np.int64)
        spot = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
        return np.where((self._keys[spot] == wanted)[:, None], self._counts[spot], 0)
