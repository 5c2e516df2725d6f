"""The three run profiles, interpreted here and nowhere else.

`smoke` proves the code runs (tests, seconds per notebook); `quick` gives meaningful numbers on a laptop
CPU in about an hour and a half from nothing (notebook 07 alone 45 min): it trains only the runs of
:data:`QUICK_RUNS`, each the smallest that still shows a claim (docs/lab-notes/quick-profile.md says why each);
`full` is the papers' setting (5 folds, paper epochs, every cell). Notebooks take `PROFILE` as a parameter and
call :func:`get_profile`; library code reads the fields, never the name.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CompositionalPlan:
    """What notebook 07 (Lan et al. 2022) trains under a profile: the smallest grid that still shows each claim
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
    comdiv: str = "comdiv-pooled"  # the split Table II's ComDiv column trains on: built on several k-means draws
    # (`compositional.datasets`); "comdiv" is the one-draw split
    sd_build: str = "proofread"  # the SD Table II trains on: proofread by hand, or "as built" by the synthesis
    da_operations: tuple[int, ...] = (2,)  # +DA's operations: operation 1's problems fail the proofreading audit
    # (docs/lab-notes/compositional.md), so it is left out; the paper's protocol is (1, 2)
    da_min_shared: int = 3  # operation 2 swaps only fragments sharing this many environments (`augment`; 0: the
    # paper's one)
    max_epochs: int | None = None  # cap on the profile's epochs for these runs (None: the profile's own)
    patience: int = 0  # stop a run once validation has not improved for this many epochs (0: never)
    sd_epochs: int | None = None  # SD's runs train exactly this many epochs, without early stopping (None: as the
    # others): proofread SD-zh trains on 272 problems, and GTS solves no validation problem for its first epochs


@dataclass(frozen=True)
class PlannedRun:
    """One cell of a notebook grid (notebooks 01–03 and 05) that a profile with a plan trains, with its own epochs and
    patience, and the claim it is there to show."""

    model: str
    embedding: str
    dataset: str  # the name runs are recorded under (`runs.dataset_splits`)
    epochs: int
    patience: int = 0  # 0: every epoch (the constrained model's validation jumps too much to stop on)
    shows: str = ""


#: `quick`'s runs (fold 0, beam 3; docs/lab-notes/quick-profile.md §4 measures each choice). Notebooks 01, 02 and
#: 05 share the MAWPS and ASDiv-A runs; the last row trains only with notebook 05's ``SVAMP_CV=True``.
QUICK_RUNS: tuple[PlannedRun, ...] = (
    PlannedRun("seq2seq", "scratch", "asdiv-a", 10, 5, "baseline of 'GTS/Graph2Tree beat Seq2Seq'; beats majority"),
    PlannedRun("seq2seq", "scratch", "mawps", 10, 5, "beats the majority template"),
    PlannedRun("transformer", "scratch", "asdiv-a", 10, 5, "S side of 'R beats S'"),
    PlannedRun("transformer", "scratch", "mawps", 10, 5, "S side of 'R beats S'"),
    PlannedRun("gts", "scratch", "asdiv-a", 12, 5, "GTS beats Seq2Seq"),
    PlannedRun("graph2tree", "scratch", "asdiv-a", 10, 5, "Graph2Tree beats Seq2Seq"),
    PlannedRun("transformer", "minilm", "asdiv-a", 10, 5, "R beats S; Table 3's R rows (02)"),
    PlannedRun("transformer", "minilm", "mawps", 8, 5, "R beats S; over half solved without the question (02)"),
    PlannedRun("constrained", "scratch", "mawps", 30, 0, "an order-blind model solves over half of MAWPS (03)"),
    PlannedRun("constrained", "scratch", "asdiv-a", 15, 0, "Table 5 (03)"),
    PlannedRun("constrained", "scratch", "mawps-asdiv-a_svamp", 15, 0, "far fewer SVAMP problems; beats majority"),
    PlannedRun("constrained", "minilm", "asdiv-a-all", 12, 0, "Tables 6/26's attention examples (03)"),
    PlannedRun("seq2seq", "scratch", "mawps-asdiv-a_svamp", 10, 5, "Tables 11, 13–15 (05)"),
    PlannedRun("transformer", "scratch", "mawps-asdiv-a_svamp", 10, 5,
               "Table 10's best model among three; generated variations rank models as SVAMP does (04)"),
    PlannedRun("gts", "scratch", "mawps-asdiv-a_svamp", 10, 5,
               "Table 10's best model among three; generated variations rank models as SVAMP does (04)"),
    PlannedRun("seq2seq", "scratch", "cv_svamp_augmented", 10, 5, "SVAMP 5-fold's fold 0 (05, SVAMP_CV=True)"),
)


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
    planned: tuple[PlannedRun, ...] | None = field(default=None, repr=False)  # notebooks 01–03 and 05 train only
    # these (None: every cell, at `epochs()`); `runs.planned_runs` shows them

    def planned_run(self, model: str, embedding: str, dataset: str) -> PlannedRun | None:
        """The plan's run for this cell, or None (also when the profile has no plan)."""
        return next((p for p in self.planned or () if (p.model, p.embedding, p.dataset) == (model, embedding,
                                                                                             dataset)), None)

    def in_plan(self, model: str, embedding: str, dataset: str) -> bool:
        """Whether a grid trains this cell under the profile: every cell without a plan, and every cell of a dataset
        the plan does not name (your own data, a probe's), at `epochs()`."""
        return (self.planned is None or self.planned_run(model, embedding, dataset) is not None
                or all(p.dataset != dataset for p in self.planned))

    def epochs(self, paper_epochs: int) -> int:
        """Epochs to train a model whose paper setting is `paper_epochs`."""
        n = max(1, round(paper_epochs * self.epoch_scale))
        return min(n, self.max_epochs) if self.max_epochs is not None else n


PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", folds=(0,), epoch_scale=0.0, max_epochs=1, train_limit=64, test_limit=32,
                     beam_size=1, overlap_limit=120),
    "quick": Profile("quick", folds=(0,), epoch_scale=0.25, max_epochs=20, train_limit=None, test_limit=None,
                     beam_size=3, overlap_limit=None, planned=QUICK_RUNS,
                     compositional=CompositionalPlan(methods=("GTS", "LSTM"), da_iterations=1, da_on_iid=False,
                                                     ladder=("max",), max_epochs=10, patience=2, sd_epochs=30)),
    "full": Profile("full", folds=(0, 1, 2, 3, 4), epoch_scale=1.0, max_epochs=None, train_limit=None,
                    test_limit=None, beam_size=5, overlap_limit=None,
                    compositional=CompositionalPlan(
                        methods=("LSTM", "Transformer", "MathEN", "GTS"), pools=("mawps", "math23k"), sd=("zh", "en"),
                        da_methods=("MathEN", "GTS"), da_iterations=7, ablation=True,
                        ladder=("ladder-target0.40", "ladder-target0.50", "ladder-target0.60", "ladder-target0.70",
                                "ladder-target0.90", "max"))),
}
DEFAULT_PROFILE = "quick"
#: What ``python -m mwplib solve`` trains when not told otherwise (`mwplib.trained`): GTS S on MAWPS + ASDiv-A
#: (3,138 problems), scored on SVAMP, for 8 epochs: `QUICK_RUNS`' GTS S run chose its epoch 8 on validation (26.2 %
#: on SVAMP) of the 10 it trained, and the first 8 epochs of a run are the same whatever its length (no rate halving
#: for GTS). Seq2Seq S, the default before, reached 19.3 % (docs/lab-notes/data-fuzz.md).
DEFAULT_SOLVER = {"model": "gts", "embedding": "scratch", "dataset": "mawps-asdiv-a_svamp", "profile": "quick",
                  "epochs": 8}
#: the solvers by name (`mwplib.models.MODELS`, which imports torch: the command line checks names without it)
MODEL_NAMES = ("seq2seq", "gts", "graph2tree", "transformer", "constrained", "convs2s")


def get_profile(name: str) -> Profile:
    """Look up a profile by name: what a notebook or command line does once with its `PROFILE` or ``--profile``,
    passing the `Profile` to the library."""
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; choose one of {sorted(PROFILES)}")
    return PROFILES[name]
