"""What the two models of a player share: explained predictions and versioned model files."""
