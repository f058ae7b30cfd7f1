"""Feature families and feature columns in words a chess player reads.

The commands that explain a ranker (``iam inspect``, ``iam predict``, ``iam train``) and a
printed explanation of either model show a family or a column by these words rather than
by its name; a column without words of its own is shown by its name.
"""

from __future__ import annotations

__all__ = ["FAMILY_WORDS", "feature_words"]

FAMILY_WORDS: dict[str, str] = {
    "move": "the move itself",
    "shape": "what the move does to the position",
    "search": "this toolkit's search",
    "value": "the value network (an engine's judgement, distilled)",
    "policy": "other masters' taste",
    "engine": "the engine",
    "glance": "the engine at first glance",
    "habits": "his own habits (chunks and opening memory)",
    "population": "other masters' openings and patterns",
}
"""Each family in words a chess player reads."""

_FEATURE_WORDS: dict[str, str] = {
    "piece_pawn": "a pawn move",
    "piece_knight": "a knight move",
    "piece_bishop": "a bishop move",
    "piece_rook": "a rook move",
    "piece_queen": "a queen move",
    "piece_king": "a king move",
    "capture": "a capture",
    "captured_value": "the material it captures",
    "exchange_gain": "what it wins in the exchange",
    "exchange_loss": "what it loses in the exchange",
    "check": "a check",
    "left_en_prise": "leaves a piece hanging",
    "rescued": "saves a threatened piece",
    "recapture": "a recapture",
    "castle": "castling",
    "promotion": "a promotion",
    "pawn_advance": "how far the pawn advances",
    "pst_gain": "a better square for the piece",
    "near_last_move": "near the last move",
    "retreat": "a retreat",
    "develop": "develops a piece",
    "same_piece_again": "moves the same piece again",
    "threat_gain": "new threats",
    "double_threat": "a double attack",
    "mobility_gain": "more room for his pieces",
    "enemy_mobility_gain": "more room for the opponent's pieces",
    "king_attack_gain": "pressure on the enemy king",
    "doubled_pawns_gain": "doubled pawns",
    "isolated_pawns_gain": "isolated pawns",
    "passed_pawns_gain": "a new passed pawn",
    "passed_pawn_push": "pushes a passed pawn",
    "rook_open_file": "a rook on an open file",
    "rook_seventh": "a rook on the seventh rank",
    "policy_log_belief": "what other masters would play",
    "policy_best": "other masters' first choice",
    "policy_rank": "its rank among other masters' choices",
    "iam_belief": "his chunks' and opening memory's belief",
    "iam_log_belief": "his chunks' and opening memory's belief (log)",
    "iam_top": "his habits' first choice",
    "rote_share": "his own opening move (how often he chose it)",
    "rote_top": "his most played opening move",
    "pattern_lift": "a kind of move he plays more than other masters",
    "book_share": "the book move (how often masters chose it)",
    "book_log_games": "how well known the book position is",
    "book_top": "the masters' most played book move",
    "pattern_rate": "a kind of move masters often play",
    "residual_trees": "the population's correction trees",
}
_BELIEF_WORDS: dict[str, str] = {
    "iam_score": "his chunks' belief by the source notes' rules",
    "iam_gap": "how far behind his chunks' favourite it is",
    "iam_rank": "its rank by his chunks' belief (log)",
    "chunks": "how many of his chunks propose it (log)",
    "frequency": "in what share of his games the chunk appears",
    "formed_rate": "how often he formed the chunk in the games it appears in",
    "formed_log": "how often he formed the chunk (log)",
    "size": "how large the chunk is",
    "major": "the chunk holds a rook or a queen",
    "temporal": "the chunk appears at this stage of his games",
    "winning": "how much more often he won than lost the chunk's games",
    "dissolved": "the chunk was just broken up",
    "completion": "how often he completed the chunk when he could",
    "completion_any": "how likely he completes one of its chunks",
    "rote_games": "how often he reached this opening position (log)",
    "legal_moves": "how many legal moves there are (log)",
    "candidates": "how many moves his habits propose (log)",
}
"""The IAM model's learned-belief columns (:data:`iam.chunks.features.FEATURES`) without a ranker column's name."""
_SCORE_WORDS: dict[str, str] = {
    "best": "{source}'s choice",
    "loss": "what it loses by {source}'s score",
    "log_loss": "what it loses by {source}'s score (log)",
    "loss_under_30cp": "within 0.3 pawns of {source}'s choice",
    "loss_under_100cp": "within a pawn of {source}'s choice",
    "loss_over_300cp": "a blunder by {source}'s score (over 3 pawns)",
    "rank": "its rank by {source}'s score",
    "best_gap": "how far ahead {source}'s choice is",
    "near_best_share": "how many moves are about as good, by {source}",
}
_SCORE_SOURCES = {
    "search": "the search",
    "value": "the value network",
    "engine": "the engine",
    "glance": "the engine's first glance",
}


def feature_words(name: str) -> str:
    """A feature column in words a chess player reads (the name itself when it has none).

    >>> feature_words("book_share"), feature_words("engine_best")
    ('the book move (how often masters chose it)', "the engine's choice")
    """
    if name in _FEATURE_WORDS:
        return _FEATURE_WORDS[name]
    if name in _BELIEF_WORDS:
        return _BELIEF_WORDS[name]
    source, _, score = name.partition("_")
    if source in _SCORE_SOURCES and score in _SCORE_WORDS:
        return _SCORE_WORDS[score].format(source=_SCORE_SOURCES[source])
    return name
