"""Engine analysis: UCI engines scoring positions, their cache on disk, and runs over many games."""
