"""Train notebook 07's grid without opening the notebook (e.g. on a GPU box), then render it from the records.

    python -m mwplib.compositional --profile full --plan            # which runs are missing, and a rough time
    python -m mwplib.compositional --profile full --methods GTS     # train them (and +DA, ablations, ladder)
    python -m mwplib.compositional --profile full --methods MathEN --pools math23k --parts table2
    python -m mwplib.compositional --profile quick --parts ladder --ladder ladder-target0.50  # a rung quick leaves out
    python -m mwplib.compositional --profile quick --parts da --equal-steps  # +DA's base at equal optimizer steps

Several such processes with different ``--methods`` may share a machine: records are written atomically, and
each process skips what is recorded when it reaches it. Give two processes disjoint methods (not only disjoint
pools: both would train the SD runs at once). The ablations and the ladder belong to the plan's first +DA method
(MathEN under `full`) and run only in the process that trains it.
"""
from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Sequence

from ..profiles import get_profile
from . import comparisons, datasets, experiments, grid

PARTS = ("table2", "da", "ladder")


def _part(plan_part: str) -> str:
    """The ``--parts`` name of a row of `grid.plan` (its +DA variants and ablations are part "da")."""
    return plan_part if plan_part in ("table2", "ladder") else "da"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mwplib.compositional", description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", nargs="+", help="only these methods of the profile's plan (Table II names)")
    parser.add_argument("--pools", nargs="+", help="only these DBCA pools (mawps, math23k)")
    parser.add_argument("--sd", nargs="*", help="only these SD sets (zh, en; none: `--sd` alone)")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--plan", action="store_true",
                        help="train nothing: list the runs not recorded yet (Table II, +DA, ladder), with a rough time")
    parser.add_argument("--plan-device", help="with --plan: time by runs recorded on cpu or cuda")
    parser.add_argument("--ablation", action="store_true",
                        help="also Table IV's ablations where the profile leaves them out (a probe beside its grid)")
    parser.add_argument("--equal-steps", action="store_true",
                        help="with part da: also each +DA cell's base trained as many optimizer steps (a probe)")
    parser.add_argument("--ladder", nargs="+", default=[], metavar="SPLIT",
                        choices=[name for name in datasets.split_names() if name not in grid.SPLIT_NAMES],
                        help="also these splits of Fig. 5a's ladder (e.g. ladder-target0.50; a probe beside its grid)")
    args = parser.parse_args(argv)
    profile = get_profile(args.profile)
    plan = profile.compositional
    da_methods = tuple(m for m in plan.da_methods if not args.methods or m in args.methods)
    first = bool(plan.da_methods) and da_methods[:1] == plan.da_methods[:1]  # the one the ablations and ladder use
    if (args.ablation or args.ladder) and not first:
        parser.error(f"--ablation and --ladder train {plan.da_methods[:1]}: keep it in --methods")
    narrowed = replace(plan, methods=tuple(args.methods or plan.methods), da_methods=da_methods,
                       ablation=(plan.ablation or args.ablation) and first,
                       ladder=tuple(dict.fromkeys([*plan.ladder, *args.ladder])) if first else (),
                       pools=tuple(args.pools or plan.pools), sd=tuple(args.sd if args.sd is not None else plan.sd))
    profile = replace(profile, compositional=narrowed)
    if args.plan:
        missing = grid.plan(profile, args.seed, args.plan_device)
        missing = missing[missing["part"].map(_part).isin(args.parts)]
        print(missing.round(1).to_string(index=False) if len(missing) else "every run is recorded")
        timed = missing["estimated minutes"].notna()
        print(f"about {missing['estimated minutes'][timed].sum() / 60:.1f} h for {int(missing['runs'][timed].sum())} "
              f"runs where a timing is recorded (+DA rounds not made yet timed at the sizes this plan's recorded "
              f"rounds grew to, at their base set's size where none is); {int(missing['runs'][~timed].sum())} runs "
              f"without one")
        return
    if "table2" in args.parts:
        for method, dataset in grid.method_runs(profile, args.seed):
            print(f"table2 {method:12} {dataset:16} recorded")
    if "da" in args.parts:
        da = grid.da_runs(profile, args.seed)
        for method, dataset, variant in da:
            print(f"+DA    {method:12} {dataset:16} {variant} recorded")
        if narrowed.ablation:
            print(experiments.table4(da, profile, experiments.augmentation_records(profile, da, args.seed))
                  .to_string(index=False))
        if args.equal_steps:
            equal = grid.equal_steps_runs(da, profile, args.seed, train_missing=True)
            print(comparisons.equal_steps_table(da, equal, profile, args.seed).to_string(index=False))
    if "ladder" in args.parts and first:
        for pool, name in grid.ladder_runs(profile, args.seed):
            print(f"ladder {narrowed.da_methods[0]:12} {pool}-{name:24} recorded")


if __name__ == "__main__":
    main()
