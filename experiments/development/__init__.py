"""Settings chosen on development games: the experiments behind the toolkit's defaults.

Each measures candidate settings on development games only (training games set aside,
``i % 5 == 3``; test games are never read) and picks one by a rule stated in its module
before the run: :mod:`~experiments.development.own_lines` (how much the ranker believes a
player's own choices), :mod:`~experiments.development.judge_depth` (the dossier's own-search
judge) and :mod:`~experiments.development.ranker_depth` (the ranker's search depth).
"""
