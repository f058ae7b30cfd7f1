"""Searching against a modelled opponent: the predictor contract, the model-guided alpha-beta (source note 001),
and exploitation by value."""
