"""What the move ranker knows before it sees the player.

The positions it reads, the conditional logit, the shipped networks and the population prior.
"""
