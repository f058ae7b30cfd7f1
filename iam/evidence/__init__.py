"""The move ranker's evidence about every legal move, by family: the move itself, the position it leaves, search scores, the player's habits and patterns."""
