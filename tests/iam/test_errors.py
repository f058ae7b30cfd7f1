"""iam.errors: the error hierarchy the CLI turns into one line, and ParameterError's wording and pickling."""

import pickle

import pytest

from iam.errors import DataError, IAMError, ModelFileError, ParameterError, PlayerNotFoundError, PositionError


def test_every_user_error_is_an_iam_error():
    for kind in (DataError, ParameterError, ModelFileError, PositionError, PlayerNotFoundError):
        assert issubclass(kind, IAMError)
    assert issubclass(ParameterError, DataError) and issubclass(PlayerNotFoundError, DataError)
    assert not issubclass(ModelFileError, DataError) and not issubclass(IAMError, ValueError)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (ParameterError("min_games", 0, "at least 1"), "min_games must be at least 1, not 0"),
        (ParameterError("rate", 0.125, "in (0, 1]"), "rate must be in (0, 1], not 0.125"),
        (ParameterError("side", "left", "white or black"), "side must be white or black, not 'left'"),
        (
            ParameterError("player", "X", "a name", reason="no game has it", others=("aliases", "side")),
            "player must be a name, not 'X': no game has it; or use aliases or side",
        ),
    ],
)
def test_parameter_error_messages(error, message):
    assert str(error) == message


def test_worded_names_the_parameters_as_asked_and_keeps_the_rest():
    error = ParameterError("min_games", 0, "at least 1", others=("games", "player"))
    assert error.worded({"min_games": "--min-games", "games": "--games"}) == (
        "--min-games must be at least 1, not 0; or use --games or player"
    )
    assert (error.parameter, error.value, error.allowed) == ("min_games", 0, "at least 1")
    assert error.others == ("games", "player")


def test_parameter_errors_survive_pickling_with_their_fields():
    """A worker process's error reaches the parent whole (subclass, fields, message)."""

    class Special(ParameterError):
        pass

    error = ParameterError("x", 1.5, "whole", reason="r", others=("y",))
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is ParameterError and str(again) == str(error)
    assert (again.parameter, again.value, again.allowed, again.reason, again.others) == ("x", 1.5, "whole", "r", ("y",))
    reduced = Special("a", 2, "odd").__reduce__()
    rebuilt = reduced[0](*reduced[1])
    assert type(rebuilt) is Special and str(rebuilt) == "a must be odd, not 2"
