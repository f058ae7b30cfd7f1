"""IAM: the Inductive Adversary Modeler, re-created.

Learns a specific chess player's habits (visual chunks and rote-memorised openings)
from their games and predicts their next move with a calibrated belief.
"""

from iam._requirements import check_chess as _check_chess

__version__ = "0.13.0"

_check_chess()
