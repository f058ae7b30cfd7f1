"""The engine's play modes: what the search thread of one ``go`` plays.

A ``go`` is answered by one of four modes: a book move; the plain or model-guided search
of the fast chess core (a timed guided move over a floor of plain search, see
:meth:`PlayModes._floored`; for ``go searchmoves``, the generic search with a root
filter); the value-exploiting search against the modelled player; or the imitation of
the modelled player. Each sends an ``info`` line per completed depth (and offers that
depth's move as the answer so far) and always returns the move to answer with, falling
back to a legal move when anything inside breaks; the
:class:`~search.chess.uci.session.SearchSession` that runs it sends the ``bestmove``. They
live in :class:`PlayModes`, the part of :class:`~search.chess.uci.engine.UciEngine` that
runs in the search thread, apart from the command loop that starts and stops it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, TextIO, cast

import chess
import chess.polyglot

from search.chess.deadline import BoundedPredictor, PredictionClock
from search.chess.exploit import ExploitingResult, ExploitingSearch
from search.chess.game import ChessGame
from search.chess.guided import GuideSettings, ModelGuide
from search.chess.imitation import (
    CHECK_DEPTH,
    BlunderBudget,
    DeepCheck,
    Imitation,
    MoveJudge,
    choose_imitation_move,
    deep_check,
    hold_deep_ceiling,
    hold_search_move,
    strengthen,
)
from search.chess.play import PlaySearch
from search.chess.scoring import RootScoreCache
from search.chess.uci.protocol import _info
from search.chess.uci.session import SearchRun
from search.evaluation import Evaluator
from search.opponent.exploitation import Exploitation
from search.opponent.omsearch import Guidance, ModelPolicy
from search.opponent.predictor import MovePredictor, abilities_of
from search.ordering import HeuristicOrderer
from search.result import Limits, SearchResult
from search.searcher import Searcher
from search.transposition import TranspositionTable

if TYPE_CHECKING:
    from search.chess.replies import ReplyPolicy

_IMITATION_SEARCH_SHARE = 0.25  # of an imitating move's time, kept for a search when the model cannot answer
IMITATION_CHECK_DEPTH = 3
"""Depth of the search that scores an imitated move's position when the model scores no moves itself (as the
move ranker's default search depth does)."""
CHECK_SHARE = 0.4
"""Of an imitating move's time, the most the deep check of its drawn move may use (:func:`deep_check`)."""
GUIDED_SHARE = 0.5
"""Of a timed guided move's time, the share the guided search (and the model's predictions in it)
may use; the plain search before it has the rest, and sets the depth the guided move must reach."""


def _left(deadline: float) -> float:
    """Seconds until ``deadline`` (``time.perf_counter``), never below 0."""
    return max(0.0, deadline - time.perf_counter())


class PlayModes:
    """The search thread's side of the engine: book, plain or guided search, exploitation, imitation.

    The engine's state it reads is declared here and set by the engine's constructor.
    """

    output: TextIO
    predictor: MovePredictor | None
    modelled_color: chess.Color | None
    guidance: Guidance
    exploitation: Exploitation | None
    exploiting: ExploitingSearch | None
    choices: dict[str, int]
    blunders: BlunderBudget
    judge: MoveJudge | None
    _root_scores: RootScoreCache
    _scores_for: MovePredictor | None
    game: ChessGame
    evaluator: Evaluator
    table: TranspositionTable
    ordering: HeuristicOrderer
    fast: PlaySearch
    multipv: int
    book: str | None
    own_book: bool
    _last_guide: ModelGuide | None
    _bounded: BoundedPredictor
    _prediction_clock: PredictionClock

    def _think(
        self,
        run: SearchRun,
        board: chess.Board,
        limits: Limits,
        allowed: tuple[chess.Move, ...] = (),
        imitation: Imitation | None = None,
        started: float | None = None,
    ) -> str:
        """The search thread's work: ``info`` per completed depth (offered to ``run`` as its
        answer so far), then the answer's text. The time limit counts from ``started``
        (``time.perf_counter``, when the ``go`` was read; None: now).

        Anything raised inside the search (a predictor breaking its contract, say) is
        reported as an ``info string`` and the deepest completed iteration's move is
        played, or a legal fallback move; the :class:`~search.chess.uci.session.SearchSession`
        that runs this sends the answer.
        """
        now = time.perf_counter()
        deadline = None if limits.time is None else (now if started is None else started) + limits.time
        if deadline is not None:
            limits = dataclasses.replace(limits, time=max(0.0, deadline - now))
        self._last_guide = None
        booked = self._book_move(run, board, allowed)
        if booked is not None:
            run.send(f"info string book move {booked.uci()}")
            return booked.uci()
        if imitation is not None and not allowed:  # the options as they were at go
            return self._imitate(run, board, limits, deadline, imitation)
        if self.exploiting is not None and not allowed:
            return self._exploit(run, self.exploiting, board, limits)
        deepest: list[SearchResult] = []
        try:
            self._search(run, board, limits, deadline, allowed, deepest)
        except Exception as exc:  # the protocol needs a bestmove whatever broke
            run.send(f"info string search error: {type(exc).__name__}: {exc}")
        finally:
            self.fast.guide = None
            self.fast.selective = False
        return self._best_move(deepest[-1] if deepest else None, board, allowed)

    def _search(
        self, run: SearchRun, board: chess.Board, limits: Limits, deadline: float | None,
        allowed: tuple[chess.Move, ...], deepest: list[SearchResult],
    ) -> None:
        """The plain or guided search, an ``info`` line per completed depth, each result appended to ``deepest``
        (kept when the search breaks later)."""
        stop = run.stop
        guided = self._last_guide = self._guide(run, board, deadline)
        if guided is not None and not allowed and deadline is not None and limits.time is not None:
            self._floored(run, board, limits, deadline, guided, deepest)
            self._predictor_note(run, guided)
            return
        iterations: Iterable[SearchResult]
        if allowed:  # go searchmoves: the generic search with a root filter and a table of its own
            inner = None if guided is None else ModelPolicy(
                self._bounded, modelled_player=0 if not board.turn else 1, guidance=self.guidance,
            )
            restricted = Searcher(
                self.game, evaluator=self.evaluator, ordering=self.ordering, quiescence=True,
                policy=_RootMoves(allowed, inner), table=TranspositionTable(capacity=self.table.capacity),
            )
            iterations = restricted.iterate(board, limits, stop=stop)
        elif guided is None and self.multipv > 1:  # the plain search, its best lines
            iterations = ()
            for lines in self.fast.iterate_lines(board, limits, self.multipv, stop=stop):
                deepest.append(lines[0])
                run.offer(self._best_move(lines[0], board))
                for index, line in enumerate(lines, 1):
                    run.send(_info(line, index))
        else:  # the fast core: selective when plain (search.chess.play), guided at his nodes when there is a guide
            self.fast.guide = guided
            self.fast.selective = guided is None
            iterations = self.fast.iterate(board, limits, stop=stop)
        if self.multipv > 1 and (guided is not None or allowed):
            run.send(f"info string MultiPV {self.multipv} is for the plain search; this search reports one line")
        for result in iterations:
            deepest.append(result)
            run.offer(self._best_move(result, board, allowed))
            run.send(_info(result))
        if guided is not None and not allowed:
            self._predictor_note(run, guided)

    def _predictor_note(self, run: SearchRun, guided: ModelGuide) -> None:
        """The ``info string`` of what the guide asked the model and what that cost."""
        stats = guided.stats()
        skipped = f", {self._bounded.skipped} left out for time" if self._bounded.skipped else ""
        run.send(
            f"info string predictor {stats.calls} positions, {stats.cache_hits} cached, "
            f"{round(stats.seconds * 1000)} ms{skipped}"
        )

    def _floored(
        self, run: SearchRun, board: chess.Board, limits: Limits, deadline: float, guided: ModelGuide,
        deepest: list[SearchResult],
    ) -> None:
        """A timed guided search over a floor of plain search: the plain engine's selective search
        first, for all but :data:`GUIDED_SHARE` of the time; then the guided search (the exact
        kernels: the guide steers those alone), its predictions within the rest.
        The guided search's move is played only from a depth the plain search completed too, so
        the model's time never costs the engine depth it would have had without the model but for
        that share; the ``info`` lines are the plain search's, then the guided search's from that depth."""
        assert limits.time is not None
        split = deadline - GUIDED_SHARE * limits.time
        self.fast.guide = None
        self.fast.selective = True  # the plain engine's own search, so the floor is its depth in that time
        floor = 0
        for result in self.fast.iterate(board, dataclasses.replace(limits, time=_left(split)), stop=run.stop):
            deepest.append(result)
            floor = result.depth
            run.offer(self._best_move(result, board))
            run.send(_info(result))
        started = time.perf_counter()
        self.fast.selective = False
        self.fast.guide = guided
        reached = 0
        for result in self.fast.iterate(board, dataclasses.replace(limits, time=_left(deadline)), stop=run.stop):
            reached = result.depth
            if result.depth >= floor:
                deepest.append(result)
                run.offer(self._best_move(result, board))
                run.send(_info(result))
        self.fast.guide = None
        played = "guided" if reached >= floor and reached else "plain"
        run.send(
            f"info string model time {round(guided.stats().seconds * 1000)} ms of the guided search's "
            f"{round((time.perf_counter() - started) * 1000)} ms (at most {GUIDED_SHARE:.0%} of the move); "
            f"guided depth {reached}, plain depth {floor}: the {played} search's move"
        )

    def _imitate(
        self, run: SearchRun, board: chess.Board, limits: Limits, deadline: float | None, imitation: Imitation,
    ) -> str:
        """The imitation's move: the model's (mixed with the search's scores by its strength, a blunder beyond his
        rate replaced), or the fast core's where the model leaves it to the search (a blunder by the check
        replaced, see :meth:`_searched`).

        With a time limit the prediction may use most of it (the rest is kept for a
        search); a prediction that cannot finish in that time is given up and the fast
        core's move played.
        """
        assert self.predictor is not None  # _check_modes: imitating needs a predictor
        deepest: list[SearchResult] = []
        move: chess.Move | None = None
        try:
            reserve = None if deadline is None or limits.time is None else (
                deadline - _IMITATION_SEARCH_SHARE * limits.time
            )
            bounded = BoundedPredictor(self.predictor, reserve, self._prediction_clock)
            cache = self._imitation_cache()
            beliefs = bounded.predict_proba(board)
            rate = self._ceiling(imitation)
            scores = (
                self._imitation_scores(run, cache, board, reserve)
                if not bounded.skipped and (imitation.strength > 0 or rate is not None) else {}
            )
            beliefs = strengthen(beliefs, scores, imitation.strength)
            choice = None if bounded.skipped else choose_imitation_move(board, beliefs, imitation)
            if choice is not None:
                self.choices[choice.source] += 1
            if choice is not None and choice.move is not None:
                move = self._held(run, board, choice.move, beliefs, scores, imitation, (limits, deadline))
                run.offer(move.uci())
                run.send(
                    f"info string model move {move.uci()} belief {beliefs.get(move, 0.0):.3f} "
                    f"(most believed {choice.top_belief:.3f})"
                )
            else:
                if choice is None:
                    self.choices["search"] += 1
                    run.send("info string search move: no time for the model's prediction")
                else:
                    run.send(
                        f"info string search move: model unsure ({choice.top_belief:.3f}) in a tactical position"
                    )
                move = self._searched(run, board, (limits, deadline), rate, deepest)
        except Exception as exc:  # the protocol needs a bestmove whatever broke
            run.send(f"info string imitation error: {type(exc).__name__}: {exc}")
        run.send(
            f"info string imitation so far: {self.choices['model']} model moves, "
            f"{self.choices['search']} search moves, {self.blunders.blunders} blunders in {self.blunders.moves}"
        )
        return move.uci() if move is not None else self._best_move(deepest[-1] if deepest else None, board)

    def _ceiling(self, imitation: Imitation) -> float | None:
        """The blunder rate the imitation holds to (None: no ceiling): the option's, else his rate by the check
        engine when one judges the drawn moves, else the model's."""
        rate = imitation.blunder_rate
        if rate is None and self.judge is not None:
            rate = self.judge.rate
        if rate is None:
            rate = abilities_of(self.predictor).blunder_rate
        return None if rate is None or rate >= 1.0 else rate

    def _imitation_cache(self) -> RootScoreCache:
        """The root scores the imitation reads, shared with a predictor that scores the same moves (so they are
        computed once)."""
        if self._scores_for is not self.predictor:
            self._root_scores = RootScoreCache(capacity=4096)
            able = abilities_of(self.predictor)
            if able.use_root_scores is not None:
                able.use_root_scores(self._root_scores)
            self._scores_for = self.predictor
        return self._root_scores

    def _imitation_scores(
        self, run: SearchRun, cache: RootScoreCache, board: chess.Board, deadline: float | None
    ) -> dict[chess.Move, int]:
        """Every legal move's score at the depth the model scores moves (:data:`IMITATION_CHECK_DEPTH` for a model
        that scores none), by ``deadline``; none when the time runs out."""
        depth = abilities_of(self.predictor).root_score_depth or IMITATION_CHECK_DEPTH
        try:
            return cache.scores(board, depth, deadline=deadline)
        except TimeoutError:
            run.send("info string no time for the search's scores: his beliefs unchecked")
            return {}

    def _held(
        self, run: SearchRun, board: chess.Board, drawn: chess.Move, beliefs: dict[chess.Move, float],
        scores: dict[chess.Move, int], imitation: Imitation, clock: tuple[Limits, float | None],
    ) -> chess.Move:
        """``drawn``, or the move that replaces a blunder beyond his rate (by a :func:`deep_check` within
        :data:`CHECK_SHARE` of the move's time); the engine's blunder budget counts it."""
        rate = self._ceiling(imitation)
        if rate is None:
            self.blunders = self.blunders.after(blunder=False)
            return drawn
        verdict = hold_deep_ceiling(
            board, drawn, beliefs, scores, self._checker(run, board, clock), rate=rate, budget=self.blunders,
            seed=imitation.seed, game=imitation.game,
        )
        self.blunders = self.blunders.after(blunder=verdict.blunder)
        if verdict.replaced:
            run.send(
                f"info string drawn move {drawn.uci()} loses {verdict.loss} cp: over his blunder rate {rate:.3f}, "
                f"replaced by {verdict.move.uci()}"
            )
        elif verdict.blunder:
            run.send(f"info string drawn move {drawn.uci()} loses {verdict.loss} cp: within his blunder rate")
        return verdict.move

    def _checker(
        self, run: SearchRun, board: chess.Board, clock: tuple[Limits, float | None]
    ) -> Callable[[chess.Move], DeepCheck | None]:
        """The check of a move the imitation plays at ``board``: the check engine's verdict when there is one, else
        a :func:`deep_check` of the compiled search deeper than the scores the model reads (None: no verdict),
        each within :data:`CHECK_SHARE` of the move's time and by its deadline."""
        limits, deadline = clock
        share = None if limits.time is None else CHECK_SHARE * limits.time
        floor = abilities_of(self.predictor).root_score_depth or IMITATION_CHECK_DEPTH
        judge = self.judge

        def check(move: chess.Move) -> DeepCheck | None:
            left = share if deadline is None or share is None else min(share, _left(deadline))
            if judge is not None:  # a stronger engine judges the move, at its depth within the share
                judged = judge.check(board, move, Limits(time=left), run.stop)
                if judged is None:
                    run.send(f"info string {judge.name} did not judge {move.uci()}: the engine's own check instead")
                else:
                    return judged
            found = deep_check(self.fast, board, move, Limits(depth=CHECK_DEPTH, time=left), stop=run.stop)
            return found if found is not None and found.depth > floor else None  # no deeper than the scores

        return check

    def _searched(
        self, run: SearchRun, board: chess.Board, clock: tuple[Limits, float | None], ceiling: float | None,
        deepest: list[SearchResult],
    ) -> chess.Move | None:
        """The move that replaces the fast core's where the model leaves the choice to the search (None: the
        search's own, the last of ``deepest``, to which each completed depth is appended). Under a
        ceiling the search keeps :data:`CHECK_SHARE` of the move's time for the check of its move
        (:func:`hold_search_move`: a blunder by the check is replaced by the check's best move); the budget counts
        the move either way."""
        limits, deadline = clock
        if deadline is not None:  # the check's share, or half the time left when the model has used more
            kept = 0.0 if ceiling is None or limits.time is None else min(
                CHECK_SHARE * limits.time, _left(deadline) / 2
            )
            limits = dataclasses.replace(limits, time=max(0.0, deadline - kept - time.perf_counter()))
        for result in self.fast.iterate(board, limits, stop=run.stop):
            deepest.append(result)
            run.offer(self._best_move(result, board))
            run.send(_info(result))
        searched = cast("chess.Move | None", deepest[-1].move) if deepest else None
        if ceiling is None or searched is None or searched not in board.legal_moves:
            self.blunders = self.blunders.after(blunder=False)
            return None
        verdict = hold_search_move(searched, self._checker(run, board, clock))
        self.blunders = self.blunders.after(blunder=verdict.blunder)
        if verdict.replaced:
            run.send(
                f"info string search move {searched.uci()} loses {verdict.loss} cp by the check: "
                f"replaced by {verdict.move.uci()}"
            )
            run.offer(verdict.move.uci())
            return verdict.move
        return None

    def _exploit(self, run: SearchRun, exploiting: ExploitingSearch, board: chess.Board, limits: Limits) -> str:
        """The value-exploiting choice against the modelled opponent (the side not to move)."""
        move: chess.Move | None = None
        best: SearchResult | None = None
        completed: list[SearchResult] = []  # the plain search's depths, kept when the probes break later

        def report(result: SearchResult) -> None:
            completed.append(result)
            run.offer(self._best_move(result, board))
            run.send(_info(result))

        try:
            found = exploiting.search(board, limits, stop=run.stop, on_iteration=report)
            best, move = found.deepened or found.plain, found.move
            probed = sum(len(probe.replies) for probe in found.probes)
            played = move.uci() if move is not None else "(none)"
            run.send(
                f"info string exploit probed {probed} replies of {len(found.probes)} moves; "
                f"{_exploit_verdict(found, exploiting.exploitation.threshold)}; "
                f"playing {played}; predictor {round(found.predictor_seconds * 1000)} ms"
                + (f"; contempt {found.contempt} cp" if exploiting.settings.contempt else "")
                + (f"; reduced {self.fast.reduced} of his moves" if self.fast.replies is not None else "")
            )
        except Exception as exc:  # the protocol needs a bestmove whatever broke
            run.send(f"info string exploit error: {type(exc).__name__}: {exc}")
        legal = move.uci() if move is not None and move in board.legal_moves else None
        fallback = best if best is not None else (completed[-1] if completed else None)
        return legal if legal is not None else self._best_move(fallback, board)

    def _guide(self, run: SearchRun, board: chess.Board, deadline: float | None = None) -> ModelGuide | None:
        """The guide of the fast core's search from ``board``; ``None`` for a plain search.

        The predictor's calls end by ``deadline``: its time counts against the move's budget.
        A predictor with a cheap reply policy (a move ranker fitted with one) guides every
        one of his nodes through that policy; another is asked at his nodes one ply below
        the root (:class:`~search.chess.guided.GuideSettings`). A new guide per ``go``: a
        prediction left out for time is asked again at the next move.

        The model steers only the modelled player's nodes. When the engine itself is
        asked to move for the modelled colour (``--player-color`` names the side to
        move), its own moves are not the model's business: that search is plain.
        """
        if self.predictor is None:
            return None
        modelled = self.modelled_color if self.modelled_color is not None else not board.turn
        if modelled == board.turn:
            run.send("info string the engine moves for the modelled player here: plain search")
            return None
        self._bounded = BoundedPredictor(self.predictor, deadline, self._prediction_clock)
        # A chess predictor's reply policy is a ReplyPolicy.
        cheap = cast("ReplyPolicy | None", abilities_of(self.predictor).reply_policy)
        settings = GuideSettings(guidance=self.guidance, near=0 if cheap is not None else 1)
        return ModelGuide(self._bounded, cheap=cheap, settings=settings)

    def _book_move(self, run: SearchRun, board: chess.Board, allowed: tuple[chess.Move, ...]) -> chess.Move | None:
        """The book's most weighted legal move here (one of ``allowed`` if given), or ``None``."""
        if self.book is None or not self.own_book:
            return None
        try:
            with chess.polyglot.open_reader(self.book) as reader:
                moves = [entry.move for entry in reader.find_all(board) if entry.move in board.legal_moves]
        except (OSError, ValueError) as exc:
            run.send(f"info string book {self.book} unreadable ({exc}); searching")
            return None
        moves = [move for move in moves if not allowed or move in allowed]
        return moves[0] if moves else None

    def _best_move(self, best: SearchResult | None, board: chess.Board, allowed: tuple[chess.Move, ...] = ()) -> str:
        """The move to send (with the expected reply as ``ponder`` when known), one of ``allowed`` if given."""
        played = None if best is None else cast("chess.Move | None", best.move)
        if best is not None and played is not None and played in (allowed or board.legal_moves):
            reply = self._expected_reply(best, board)
            return played.uci() if reply is None else f"{played.uci()} ponder {reply.uci()}"
        moves = list(allowed or board.legal_moves)
        if not moves:
            return "0000"  # the game is over: the protocol's null move
        ordered: Sequence[Hashable]
        try:
            ordered = self.ordering.order(self.game.cursor(board), moves, ply=0, hint=None)
        except Exception:  # a broken orderer must not cost the move
            ordered = moves
        return cast(chess.Move, ordered[0]).uci()

    def _expected_reply(self, best: SearchResult, board: chess.Board) -> chess.Move | None:
        """The reply to ponder on: the modelled player's most believed one where the guided search asked the model
        (no new prediction: its time is spent), else the principal variation's."""
        move = cast(chess.Move, best.move)
        pv = cast("Sequence[chess.Move]", best.pv)
        after = board.copy()  # with the game's moves: a model's context reads them
        after.push(move)
        guide = self._last_guide
        believed = guide.believed_move(after) if guide is not None else None
        if believed is not None:
            return believed
        if len(pv) >= 2 and pv[0] == move and pv[1] in after.legal_moves:
            return pv[1]
        return None


def _exploit_verdict(found: ExploitingResult, threshold: float) -> str:
    """What the exploiting search's check made of its best candidate, for the ``info string`` of its move."""
    candidate, checked = found.candidate, found.checked
    if candidate is None or checked is None:
        return "no candidate promised more than the plain move"
    kept = "kept" if found.changed else "rejected"
    value = cast(float, checked.value)
    return (
        f"checked {candidate.action.uci()} alone to depth {checked.depth}: "
        f"{value:g}, gain {candidate.gain(value, threshold):.0f}, {kept}"
    )


class _RootMoves:
    """A search policy that keeps only ``allowed`` at the root (``go searchmoves``), then defers to ``inner``."""

    def __init__(self, allowed: tuple[chess.Move, ...], inner: ModelPolicy | None) -> None:
        self.allowed = set(allowed)
        self.inner = inner

    def plan(self, cursor, actions, *, ply: int, depth: float):
        plan = self.inner.plan(cursor, actions, ply=ply, depth=depth) if self.inner is not None else None
        if ply > 0:
            return plan
        pairs = plan if plan is not None else [(action, 0) for action in actions]
        kept = [(action, adjustment) for action, adjustment in pairs if action in self.allowed]
        return kept or [(action, 0) for action in actions if action in self.allowed]
