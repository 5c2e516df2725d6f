"""+DA against its base at other training seeds, on the same split: is a +DA difference DA's, or one seed's?

Notebook 07 trains each cell once (seed 0); McNemar then counts the test problems two runs disagree on, not what
another seed would do. This trains the base run and one +DA round of the first +DA method on the profile's ComDiv
split with each seed given (the split stays seed 0's), records them like the notebook's runs, and prints both
accuracies and the paired test, and the base again at as many optimizer steps as +DA made
(`grid.equal_steps_epochs`). Usage (about 25 minutes a seed under `quick` on a 2-core CPU):

    .venv/bin/python benchmarks/da_seeds.py --profile quick --seeds 1
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mwplib.significance import paired_difference  # noqa: E402
from mwplib.compositional import datasets, experiments, grid, training  # noqa: E402
from mwplib.profiles import get_profile  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    args = parser.parse_args(argv)
    profile = get_profile(args.profile)
    plan = profile.compositional
    method, pool = plan.da_methods[0], plan.pools[0]
    dataset = f"{pool}-{plan.comdiv}"
    train, validation, test = grid.limited(datasets.as_split(pool, plan.comdiv, 0), profile)
    for seed in args.seeds:
        record = training.augmented(method, dataset, train, validation, test, profile, seed)
        sets = training.grown_sets(train, record)
        base, grown = sets[0], sets[-1]
        runs = [training.train_method(method, dataset, problems, validation, test, profile, seed)
                for problems in (base, grown)]
        epochs = grid.equal_steps_epochs(runs[1], len(base))  # the base as many optimizer steps as +DA
        runs.append(training.train_method(method, dataset, base, validation, test, profile, seed, epochs=epochs))
        correct = [training.correctness(members) for members in runs]
        own, equal = paired_difference(correct[0], correct[1]), paired_difference(correct[2], correct[1])
        print(f"seed {seed}: {method} {experiments.accuracy(runs[0]):.1f}, {method}+DA "
              f"{experiments.accuracy(runs[1]):.1f} ({len(grown) - len(base)} problems kept), +DA − base "
              f"{own['difference']:.2f}, McNemar p = {own['mcnemar_p']:.3g} on {own['n']} problems; base at "
              f"equal steps ({epochs} epochs) {experiments.accuracy(runs[2]):.1f}, +DA − it "
              f"{equal['difference']:.2f}, p = {equal['mcnemar_p']:.3g}")


if __name__ == "__main__":
    main()
