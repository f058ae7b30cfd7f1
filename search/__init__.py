"""Game-tree search over a small game protocol; chess is one adapter among small games."""
