"""The options of each experiment, one module per experiment, and their conversion into its config.

Each module names the experiment (``NAME``, ``HELP``), adds its options
(``add_arguments``), turns the parsed options into the experiment's frozen config
(``config``) and names the experiment's ``run``. :mod:`iam.cli.experiment` lists
them and gives every experiment ``--seed``, ``--jobs``, ``--json``, ``--out`` and
``--quiet``.
"""
