"""The three run profiles, interpreted here and nowhere else.

`smoke` proves the code runs (tests, seconds per notebook); `quick` gives meaningful numbers on a laptop
CPU; `full` is the papers' setting (5 folds, paper epochs). Notebooks take `PROFILE` as a parameter and
call :func:`get_profile`; library code reads the fields, never the name.
"""
from __future__ import annotations

from dataclasses import dataclass


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

    def epochs(self, paper_epochs: int) -> int:
        """Epochs to train a model whose paper setting is `paper_epochs`."""
        n = max(1, round(paper_epochs * self.epoch_scale))
        return min(n, self.max_epochs) if self.max_epochs is not None else n


PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", folds=(0,), epoch_scale=0.0, max_epochs=1, train_limit=64, test_limit=32,
                     beam_size=1, overlap_limit=120),
    "quick": Profile("quick", folds=(0,), epoch_scale=0.25, max_epochs=20, train_limit=None, test_limit=None,
                     beam_size=3, overlap_limit=None),
    "full": Profile("full", folds=(0, 1, 2, 3, 4), epoch_scale=1.0, max_epochs=None, train_limit=None,
                    test_limit=None, beam_size=5, overlap_limit=None),
}
DEFAULT_PROFILE = "quick"


def get_profile(name: str | Profile) -> Profile:
    """Look up a profile by name (a `Profile` is returned as it is)."""
    profile = name if isinstance(name, Profile) else PROFILES.get(name)
    if profile is None:
        raise ValueError(f"unknown profile {name!r}; choose one of {sorted(PROFILES)}")
    return profile
