"""The commands of the evolutionary chapter: ``iam evolve`` (:mod:`iam.cli.evolution.evolve`)."""
