"""The three run profiles, interpreted here and nowhere else.

`smoke` proves the code runs (tests, seconds per notebook); `quick` gives meaningful numbers on a laptop
CPU; `full` is the papers' setting (5 folds, paper epochs). Notebooks take `PROFILE` as a parameter and
call :func:`get_profile`; library code reads the fields, never the name.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CompositionalPlan:
    """What notebook 06 (Lan et al. 2022) trains under a profile: the smallest grid that still shows each claim
    under `quick`, the paper's under `full`."""

    methods: tuple[str, ...] = ("GTS",)  # Table II's solvers, by the paper's names (`compositional.training.METHODS`)
    pools: tuple[str, ...] = ("mawps",)  # DBCA-split pools trained on (Table I lists every pool's splits)
    sd: tuple[str, ...] = ("zh",)  # SD sets trained on: "zh" from Math23K (the paper's), "en" from MAWPS + ASDiv-A
    da_methods: tuple[str, ...] = ("GTS",)  # solvers given +DA (Tables II, III, Fig. 5b; the first: Table IV, Fig. 5a)
    da_iterations: int = 1  # T of Algorithm 1 (the paper: 7)
    da_on_iid: bool = True  # +DA on the I.I.D. splits too (Table II's +DA rows), not only ComDiv and SD
    ablation: bool = False  # Table IV: +DA without the ranker, operation 1 or operation 2
    ladder: tuple[str, ...] = ()  # split names of Fig. 5a's ladder trained on (besides I.I.D. and ComDiv), by the
    # first of `da_methods` (the paper: MathEN)
    max_epochs: int | None = None  # cap on the profile's epochs for these runs (None: the profile's own)
    patience: int = 0  # stop a run once validation has not improved for this many epochs (0: never)


@dataclass(frozen=True)
class Profile:
    name: str
    folds: tuple[int, ...]  # which cross-validation folds to run
    epoch_scale: float  # multiplies each model's paper epochs (1.0 = paper)
    max_epochs: int | None  # hard cap on epochs after scaling (None = no cap)
    train_limit: int | None  # use at most this many training problems (None = all)
    test_limit: int | None  # evaluate on at most this many test problems (None = all)
    beam_size: int  # beam width for tree/sequence decoding
    overlap_limit: int | None  # problems per subset in overlap statistics (None = all)
    compositional: CompositionalPlan = field(default_factory=CompositionalPlan)

    def epochs(self, paper_epochs: int) -> int:
        """Epochs to train a model whose paper setting is `paper_epochs`."""
        n = max(1, round(paper_epochs * self.epoch_scale))
        return min(n, self.max_epochs) if self.max_epochs is not None else n


PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", folds=(0,), epoch_scale=0.0, max_epochs=1, train_limit=64, test_limit=32,
                     beam_size=1, overlap_limit=120),
    "quick": Profile("quick", folds=(0,), epoch_scale=0.25, max_epochs=20, train_limit=None, test_limit=None,
                     beam_size=3, overlap_limit=None,
                     compositional=CompositionalPlan(methods=("GTS", "LSTM"), da_iterations=1, da_on_iid=False,
                                                     ladder=("max",), max_epochs=10, patience=2)),
    "full": Profile("full", folds=(0, 1, 2, 3, 4), epoch_scale=1.0, max_epochs=None, train_limit=None,
                    test_limit=None, beam_size=5, overlap_limit=None,
                    compositional=CompositionalPlan(
                        methods=("LSTM", "Transformer", "MathEN", "GTS"), pools=("mawps", "math23k"), sd=("zh", "en"),
                        da_methods=("MathEN", "GTS"), da_iterations=7, ablation=True,
                        ladder=("ladder-target0.40", "ladder-target0.50", "ladder-target0.60", "ladder-target0.70",
                                "ladder-target0.90", "max"))),
}
DEFAULT_PROFILE = "quick"


def get_profile(name: str | Profile) -> Profile:
    """Look up a profile by name (a `Profile` is returned as it is)."""
    profile = name if isinstance(name, Profile) else PROFILES.get(name)
    if profile is None:
        raise ValueError(f"unknown profile {name!r}; choose one of {sorted(PROFILES)}")
    return profile
