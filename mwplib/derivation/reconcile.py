"""Template reconciliation (§3): group equivalent templates of one or several datasets.

Cheap invariants first (`equivalence.may_be_equivalent`: slot, unknown and equation counts and solutions on
shared probe inputs), then TEMPLEQUIV only against the representatives of classes those do not rule out.
Used by notebook 06 (Table 2, and the TE* setting of Table 4).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from mwplib.derivation.derivations import Derivation
from mwplib.derivation.equivalence import counts, may_be_equivalent, template_equivalences
from mwplib.derivation.templates import Template


@dataclass
class Reconciliation:
    """`representative[key]` is the class representative of template `key` and `renaming[key]` maps the
    template's slots onto the representative's slots."""

    representative: dict[str, Template] = field(default_factory=dict)
    renaming: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def classes(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for key, rep in self.representative.items():
            out[rep.key].append(key)
        return dict(out)

    def apply(self, derivation: Derivation) -> Derivation:
        """The same derivation written with its class representative (alignment renamed by γ)."""
        gamma = self.renaming[derivation.template.key]
        rep = self.representative[derivation.template.key]
        return Derivation(rep, {gamma[slot]: pos for slot, pos in derivation.alignment.items()})


def reconcile(templates: Iterable[Template], seed: int = 0) -> Reconciliation:
    """Group equivalent templates; the first template seen of each class represents it."""
    result = Reconciliation()
    reps_by_counts: dict[tuple, list[Template]] = defaultdict(list)
    for template in templates:
        if template.key in result.representative:
            continue
        for rep in filter(lambda rep: may_be_equivalent(template, rep), reps_by_counts[counts(template)]):
            found = template_equivalences(template, rep, seed=seed, first_only=True)
            if found:
                result.representative[template.key] = rep
                result.renaming[template.key] = dict(found[0])
                break
        else:
            reps_by_counts[counts(template)].append(template)
            result.representative[template.key] = template
            result.renaming[template.key] = {s: s for s in template.slots}
    return result
