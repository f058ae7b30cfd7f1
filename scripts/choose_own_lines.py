"""Choose how much the ranker believes a player's own choices, on development games.

    python scripts/choose_own_lines.py [--out results/own-lines] [--players Botvinnik,...] [--jobs 2]

For each bundled master, the default ranker is fitted on his training games less the development
games, and its beliefs are read at every development position his memory holds; the strengths of
:mod:`experiments.development.own_lines` are compared there and one is chosen by its rule (the least mean log
loss over the masters, a tie going to the larger strength). Written: ``strengths.csv`` (per master,
colour and strength), ``calibration.csv`` (belief bands per colour at the chosen strength and with
the model alone) and ``choice.json``; the markdown tables are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from experiments.development.own_lines import (
    MASTERS,
    OwnLinesConfig,
    calibration_table,
    choose_strength,
    player_rows,
    strength_table,
)
from iam.runtime import Runtime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/own-lines"))
    parser.add_argument("--players", default=",".join(MASTERS))
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    config = OwnLinesConfig(players=tuple(args.players.split(",")), runtime=Runtime(jobs=args.jobs))
    rows: list[dict] = []
    for player in config.players:
        started = time.perf_counter()
        found = player_rows(player, config)
        rows.extend(found)
        print(f"{player}: {len(found)} development book positions ({time.perf_counter() - started:.0f} s)",
              file=sys.stderr)
    table = strength_table(rows, config.strengths)
    chosen = choose_strength(table)
    calibration = pd.concat([
        calibration_table(rows, chosen).assign(strength=chosen),
        calibration_table(rows, float("inf")).assign(strength=float("inf")),
    ])
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "strengths.csv", index=False)
    calibration.to_csv(args.out / "calibration.csv", index=False)
    (args.out / "choice.json").write_text(json.dumps({"strength": chosen, "positions": len(rows)}, indent=2) + "\n")
    pooled = table.assign(total=table["log_loss"] * table["positions"], hits=table["top1"] * table["positions"])
    pooled = pooled.groupby(["player", "strength"])[["total", "hits", "positions"]].sum()
    pooled["log_loss"] = pooled["total"] / pooled["positions"]
    pooled["top1"] = pooled["hits"] / pooled["positions"]
    wide = pooled["log_loss"].unstack("strength")
    print(f"chosen strength: {chosen:g} ({len(rows)} development positions)")
    print("\nlog loss per master (both colours):")
    print(wide.round(3).to_markdown())
    print("\ntop-1 per master (both colours):")
    print(pooled["top1"].unstack("strength").round(3).to_markdown())
    print("\nper colour, mean over masters:")
    print(table.groupby(["colour", "strength"])[["log_loss", "top1"]].mean().unstack("colour").round(3).to_markdown())
    print("\ncalibration:")
    print(calibration.round(3).to_markdown(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
