"""The opponent model: IAM as a scikit-learn style estimator.

``OpponentModel().fit(games)`` learns one player's chunk library, rote memory and
belief from :class:`~iam.games.pgn.PlayerGame` records (see :func:`iam.games.pgn.load_player_games`);
``predict_proba(board)`` gives, for the side to move on a ``chess.Board``, a
belief per candidate move; ``predict`` ranks the moves; ``explain`` says why.

The board's move stack is used when present: the rote memory follows the game's
moves from its start, and the dissolved-pattern rule looks at the position
before the player's previous move.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import ClassVar

import chess
import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from iam.chunks.belief import RuleWeights, learn_belief, rule_beliefs
from iam.chunks.board import planes_from_bitboards
from iam.chunks.collector import ChunkOccurrences, collect
from iam.chunks.explain import explain
from iam.chunks.features import FEATURES, CandidateRows, candidate_rows, eligible
from iam.chunks.fitted import PARAM_CONSTRAINTS, FittedState, TrainingSummary, from_document, to_document
from iam.chunks.leave_one_out import CompletionRecord, OwnCounts, SampledPosition
from iam.chunks.library import ChunkLibrary
from iam.chunks.noise_filter import chunk_statistics, noise_filter, passes_filters
from iam.chunks.partial import find_completions
from iam.chunks.replay import PlayerMoves, player_move_count, replay
from iam.chunks.rote import RoteMemory
from iam.games.digest import TrainingGames
from iam.games.pgn import PlayerGame, check_player_games
from iam.models.base import Fitted, PlayerModel, most_common_name
from iam.models.explanation import Explanation

__all__ = ["OpponentModel"]

_FIT_STEPS = ("replay", "chunks", "library and rote memory", "belief sample", "belief fit")


class OpponentModel(PlayerModel):
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
        or ``"rules"`` (source note 001's heuristics with ``rule_weights``).
    rule_weights:
        Weights of the source notes' heuristics (:class:`~iam.chunks.belief.RuleWeights`).
    belief_positions:
        How many training positions (sampled) the learned belief is fitted on.
    random_state:
        Seed of the position sample.
    player:
        Name of the modelled player (a label; inferred from the games if None).

    >>> from iam.games.bundled import default_pgn
    >>> from iam.games.pgn import load_player_games
    >>> games, _ = load_player_games([default_pgn()], player="Botvinnik", split="train", max_games=30)
    >>> model = OpponentModel(belief="rules").fit(games)
    >>> model.n_games_, model.player_
    (30, 'Botvinnik, Mikhail')
    >>> board = chess.Board()
    >>> board.push_san("d4")
    Move.from_uci('d2d4')
    >>> beliefs = model.predict_proba(board)  # {Move: belief}, highest first
    >>> all(0 <= belief <= 1 for belief in beliefs.values()) and sum(beliefs.values()) <= 1
    True
    """

    player_ = Fitted()
    n_games_ = Fitted("training")
    n_positions_ = Fitted("training")
    colors_ = Fitted("training")
    chunk_counts_ = Fitted("training")
    notes_ = Fitted("training")
    training_games_ = Fitted("training")
    rule_weights_ = Fitted()
    library_ = Fitted()
    rote_ = Fitted()
    belief_ = Fitted()
    belief_kind_ = Fitted("training")
    facts_ = Fitted()

    kind: ClassVar[str] = "iam"
    """Which kind of model this is, as reports and JSON name it (the IAM model)."""
    _parameter_constraints: ClassVar[dict[str, list]] = PARAM_CONSTRAINTS

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
        games = check_player_games(games, "OpponentModel.fit")
        self._check_games(games)
        steps = _FIT_STEPS if self.belief == "learned" else _FIT_STEPS[:3]
        step = iter(progress(steps) if progress is not None else steps)
        next(step)  # replaying the games
        # The learned belief's sample is drawn first, so that one replay also keeps its boards.
        picked = self._pick_sample(player_move_count(games)) if self.belief == "learned" else None
        moves = replay(games, keep=picked)
        if len(moves) == 0:
            raise ValueError("the games contain no move of the modelled player")
        next(step)  # collecting chunks
        occurrences, chunk_counts, table = self._stored_chunks(moves)
        next(step)  # the library and the rote memory
        rote = RoteMemory.learn(games, max_ply=self.rote_max_ply, min_games=self.min_games)
        notes = self._library_notes(table, rote)
        white = sum(game.color == chess.WHITE for game in games)
        self.state_ = FittedState(
            params=self.get_params(),
            player=self.player or most_common_name(games),
            training=TrainingSummary(
                n_games=len(games),
                n_positions=len(moves),
                colors={"white": int(white), "black": len(games) - int(white)},
                chunk_counts=chunk_counts,
                belief_kind=self.belief,
                notes=notes,
                training_games=TrainingGames.of(games),
            ),
            rule_weights=self.rule_weights or RuleWeights(),
            library=ChunkLibrary.from_table(table),
            rote=rote,
        )
        if self.belief == "learned":
            assert picked is not None  # drawn above for the learned belief
            self._fit_learned_belief(games, moves, occurrences, picked, table, notes, step)
        next(step, None)  # lets a progress bar show the last step done
        return self

    def _check_games(self, games: list[PlayerGame]) -> None:
        """ValueError or TypeError for parameters or games the model cannot be fitted with."""
        self._check_params()
        if not games:
            raise ValueError("cannot fit an opponent model on no games")

    def _stored_chunks(self, moves: PlayerMoves) -> tuple[ChunkOccurrences, dict[str, int], pd.DataFrame]:
        """The chunks of the player's positions, how many each filter kept, and the table of those stored.

        The counts are the model's ``chunk_counts``: occurrences, distinct chunks, those
        after the noise filter and those stored.
        """
        occurrences = collect(planes_from_bitboards(moves.bitboards), moved_to=moves.moved_to)
        statistics = chunk_statistics(occurrences, moves.info)
        filtered = noise_filter(statistics, min_games=self.min_games)
        stored = passes_filters(
            filtered["games"], filtered["formed_games"],
            min_games=self.min_games, min_formed_games=self.min_formed_games,
        )
        table = filtered[stored]
        counts = {
            "occurrences": int(len(occurrences)),
            "distinct": int(len(statistics)),
            "after_noise_filter": int(len(filtered)),
            "stored": int(len(table)),
        }
        return occurrences, counts, table

    def _library_notes(self, table: pd.DataFrame, rote: RoteMemory) -> list[str]:
        """The fitting notes about the library: one saying what can still predict when no chunk was stored."""
        notes: list[str] = []
        if len(table) == 0:
            remembers = len(rote) > 0 or len(rote.positions) > 0
            left = (
                "only the rote memory can predict"
                if remembers else "nothing can be predicted (the rote memory is empty too)"
            )
            notes.append(
                f"no chunk passed the filters (seen in >= {self.min_games} games, formed by a move in "
                f">= {self.min_formed_games} games): {left}"
            )
        return notes

    def _fit_learned_belief(
        self,
        games: list[PlayerGame],
        moves: PlayerMoves,
        occurrences: ChunkOccurrences,
        picked: np.ndarray,
        table: pd.DataFrame,
        notes: list[str],
        step: Iterator,
    ) -> None:
        """Count the chunks' completions on the sampled positions, then fit the learned belief on them.

        Advances ``step`` once per stage. When the belief cannot be learned, the model
        keeps the source notes' rules and says why in ``notes`` (the state's own list).
        """
        next(step)  # the belief's sample of training positions
        sample = self._sample(games, moves, occurrences, picked)
        record = CompletionRecord(sample, len(table))
        table = table.assign(completed=record.completed, opportunities=record.opportunities)
        self.state_ = replace(self.state_, library=replace(self.library_, table=table))
        next(step)  # fitting the belief
        rows, played, position, game = self._training_rows(sample, record)
        try:
            belief = learn_belief(rows, played, position, game, random_state=self.random_state)
            self.state_ = replace(self.state_, belief=belief)
        except ValueError as exc:
            notes.append(f"learned belief unavailable ({exc}); using the source notes' rules")
            training = replace(self.state_.training, belief_kind="rules", notes=notes)
            self.state_ = replace(self.state_, training=training)

    def _pick_sample(self, positions: int) -> np.ndarray:
        """Sorted indices of the training positions the learned belief is fitted on."""
        if positions == 0:
            return np.zeros(0, dtype=np.int64)
        rng = np.random.default_rng(self.random_state)
        return np.sort(rng.choice(positions, size=min(self.belief_positions, positions), replace=False))

    def _sample(
        self, games: list[PlayerGame], moves: PlayerMoves, occurrences: ChunkOccurrences, picked: np.ndarray
    ) -> list[SampledPosition]:
        """Run the finder on the sampled training positions, each without its own game."""
        game_ids, plies = moves.game[picked].tolist(), moves.ply[picked].tolist()
        own = OwnCounts(self.library_, occurrences, moves, games_in=np.unique(moves.game[picked]))
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
                SampledPosition(
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
        self, sample: list[SampledPosition], record: CompletionRecord
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
        """Belief per candidate move of the side to move, highest first; they sum to at most 1.

        The model abstains (:class:`search.opponent.predictor.Abstaining`): moves no chunk or
        memory proposes are not named, and the belief left over is :meth:`abstention`.
        """
        rows, beliefs = self.candidates(board)
        order = np.argsort(-beliefs, kind="stable")
        return {rows.moves[i]: float(beliefs[i]) for i in order.tolist() if beliefs[i] > 0.0}

    def chunk_model(self) -> OpponentModel:
        """The model whose chunk library describes him: this one."""
        return self

    def opening_memory(self) -> RoteMemory:
        """The rote memory of his openings (what identification's repertoire reads)."""
        check_is_fitted(self, "rote_")
        return self.rote_

    def abstention(self, board: chess.Board) -> float:
        """The belief left to moves the model does not name here: it abstains where no chunk or memory applies."""
        return max(0.0, 1.0 - sum(self.predict_proba(board).values()))

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

    def explain(self, board: chess.Board, *, top: int | None = None) -> list[Explanation]:
        """Ranked :class:`~iam.models.explanation.Explanation` objects saying why each move is believed."""
        return explain(self, board, top=top)

    # -- files (saved and loaded by PlayerModel) ----------------------------------

    def to_dict(self) -> dict:
        """The model file's content: format, version, toolkit, then the fitted state."""
        check_is_fitted(self, "state_")
        return to_document(self.state_)

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "model") -> OpponentModel:
        """The fitted model in :meth:`to_dict`'s content (ModelFileError if it is not one)."""
        return cls.from_state(from_document(data, source=source))

    @classmethod
    def from_state(cls, state: FittedState) -> OpponentModel:
        """The fitted model holding ``state`` (its parameters are the state's)."""
        model = cls(**state.params)
        model.state_ = state
        return model
