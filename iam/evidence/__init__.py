"""The move ranker's evidence about every legal move, by family.

The move itself, the position it leaves, search scores, the player's habits and patterns.
"""
