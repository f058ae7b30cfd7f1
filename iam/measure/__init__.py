"""Measuring models: evaluation on held-out games, bootstrap intervals, baselines, every predictor by name, and
identification of who played."""
