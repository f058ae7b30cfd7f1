"""The player models' shared base: checked parameters, saving and loading through to_dict/from_dict, the label."""

from __future__ import annotations

import gzip
import json

import chess
import pytest

from iam.errors import ModelFileError
from iam.games.pgn import PlayerGame
from iam.models.base import Fitted, Number, PlayerModel, WholeNumber, most_common_name


class Counting(PlayerModel):
    """A toy model: counts its games; stands for any model keeping the base's contract."""

    kind = "counting"
    _parameter_constraints = {"depth": [WholeNumber(1, None, closed="left")], "rate": [Number(0, 1, closed="both")]}

    def __init__(self, depth: int = 2, rate: float = 0.5) -> None:
        self.depth = depth
        self.rate = rate

    def fit(self, games):
        self._check_params()
        self.games_ = len(games)
        return self

    def to_dict(self) -> dict:
        return {"format": "counting", "version": 1, "depth": self.depth, "rate": self.rate, "games": self.games_}

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "model", scale: int = 1):
        if not isinstance(data, dict) or data.get("format") != "counting":
            raise ModelFileError(f"{source} is not a counting model")
        model = cls(depth=data["depth"], rate=data["rate"])
        model.games_ = data["games"] * scale
        return model


def _game(white: str, black: str, color: chess.Color) -> PlayerGame:
    return PlayerGame(index=0, color=color, start_fen=chess.STARTING_FEN, moves=(), result="draw", white=white,
                      black=black)


@pytest.mark.parametrize(
    "value, satisfied", [(1, True), (7, True), (10**20, True), (0, False), (-3, False), (True, False),
                         (False, False), (2.0, False), ("3", False)],
)
def test_a_whole_number_is_an_integer_in_range_never_a_boolean(value, satisfied):
    assert WholeNumber(1, None, closed="left").is_satisfied_by(value) is satisfied


@pytest.mark.parametrize(
    "value, satisfied", [(0, True), (0.0, True), (1, True), (0.25, True), (1.0001, False), (-1e-9, False),
                         (True, False), (False, False), (float("nan"), False)],
)
def test_a_number_is_a_real_in_range_never_a_boolean(value, satisfied):
    assert Number(0, 1, closed="both").is_satisfied_by(value) is satisfied


def test_the_interval_ends_follow_closed():
    """``closed`` decides whether each end belongs to the range, as in scikit-learn's intervals."""
    assert not WholeNumber(1, 5, closed="neither").is_satisfied_by(1)
    assert not WholeNumber(1, 5, closed="neither").is_satisfied_by(5)
    assert WholeNumber(1, 5, closed="right").is_satisfied_by(5)
    assert not Number(0, 1, closed="left").is_satisfied_by(1.0)
    assert Number(0, 1, closed="left").is_satisfied_by(0.0)


@pytest.mark.parametrize("depth, rate, named", [(0, 0.5, "depth"), (True, 0.5, "depth"), (2, 1.5, "rate"),
                                                (2, "high", "rate")])
def test_a_parameter_outside_its_constraints_is_a_value_error_naming_it_at_fit(depth, rate, named):
    model = Counting(depth=depth, rate=rate)  # stored as given: scikit-learn checks at fit
    assert model.get_params() == {"depth": depth, "rate": rate}
    with pytest.raises(ValueError, match=f"'{named}' parameter of Counting must be"):
        model.fit([])


def test_the_estimator_contract_of_scikit_learn_holds():
    """get_params/set_params/clone work on the parameters ``__init__`` stores."""
    from sklearn.base import clone

    model = Counting(depth=3).fit([1, 2])
    assert model.set_params(rate=0.25) is model and model.get_params() == {"depth": 3, "rate": 0.25}
    copy = clone(model)
    assert copy.get_params() == model.get_params() and not hasattr(copy, "games_")


@pytest.mark.parametrize("name", ["model.json", "model.json.gz"])
def test_save_and_load_round_trip_through_the_document(tmp_path, name):
    """save writes to_dict's content (gzipped for .gz), load reads it back with from_dict."""
    path = tmp_path / name
    Counting(depth=4, rate=0.75).fit([1, 2, 3]).save(path)
    raw = path.read_bytes()
    text = gzip.decompress(raw) if name.endswith(".gz") else raw
    assert json.loads(text) == {"format": "counting", "version": 1, "depth": 4, "rate": 0.75, "games": 3}
    loaded = Counting.load(path)
    assert loaded.get_params() == {"depth": 4, "rate": 0.75} and loaded.games_ == 3


def test_load_passes_its_options_to_from_dict_and_names_the_file(tmp_path):
    path = tmp_path / "model.json"
    Counting().fit([1]).save(path)
    assert Counting.load(path, scale=5).games_ == 5
    path.write_text('{"format": "other"}')
    with pytest.raises(ModelFileError, match=f"model file {path} is not a counting model"):
        Counting.load(path)
    with pytest.raises(ModelFileError, match="model file not found"):
        Counting.load(tmp_path / "missing.json")


def test_the_base_alone_has_no_file_content_and_closes_as_a_context_manager():
    """to_dict and from_dict are the subclass's to write; ``with model:`` returns the model itself."""
    with pytest.raises(NotImplementedError):
        PlayerModel().to_dict()
    with pytest.raises(NotImplementedError):
        PlayerModel.from_dict({})
    model = Counting()
    with model as entered:
        assert entered is model


def test_both_models_have_their_own_kind():
    from iam.chunks.model import OpponentModel
    from iam.ranker import MoveRanker

    assert issubclass(OpponentModel, PlayerModel) and issubclass(MoveRanker, PlayerModel)
    assert isinstance(OpponentModel.kind, str) and isinstance(MoveRanker.kind, str)
    assert OpponentModel.kind != MoveRanker.kind


def test_most_common_name_is_the_players_name_in_most_games():
    """The player's own side counts: his opponents' names never win, however often they appear."""
    games = [
        _game("Botvinnik", "Tal", chess.WHITE),
        _game("Tal", "Botvinnik", chess.BLACK),
        _game("Tal", "Botvinnik, M.", chess.BLACK),
        _game("Botvinnik, M.", "Smyslov", chess.WHITE),
        _game("Tal", "Botvinnik", chess.BLACK),
    ]
    assert most_common_name(games) == "Botvinnik"
    assert most_common_name(games[2:4]) == "Botvinnik, M."
    assert most_common_name([]) == ""


def test_most_common_name_of_the_bundled_player(botvinnik_games):
    name = most_common_name(botvinnik_games)
    assert "Botvinnik" in name
    assert sum((g.white if g.color == chess.WHITE else g.black) == name for g in botvinnik_games) > len(
        botvinnik_games
    ) / 2


def test_fitted_attributes_read_the_one_fitted_record():
    """A fitted attribute is a field of ``state_`` (or of one of its parts); it is read, never set."""
    from dataclasses import dataclass

    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    @dataclass(frozen=True)
    class Training:
        n_games: int

    @dataclass(frozen=True)
    class State:
        player: str
        training: Training

    class Recorded(Counting):
        player_ = Fitted()
        n_games_ = Fitted("training")

        def fit(self, games):
            self.state_ = State(player="X", training=Training(n_games=len(games)))
            return self

    model = Recorded()
    with pytest.raises(NotFittedError):
        check_is_fitted(model, "player_")
    model.fit([1, 2])
    assert (model.player_, model.n_games_) == ("X", 2) and isinstance(Recorded.player_, Fitted)
    with pytest.raises(AttributeError, match="replace state_"):
        model.n_games_ = 3
