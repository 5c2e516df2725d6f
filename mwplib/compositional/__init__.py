"""Compositional generalization in math word problem solving (Lan et al. 2022), notebook 07.

Modules, in the order the method runs (ARCHITECTURE.md has a row each): `divergence` (Chernoff coefficient,
atom and compound divergence), `atoms` (quantities labelled by the cluster of their context; atoms and compounds of
an expression tree), `splits` (the greedy DBCA split, I.I.D. splits, the divergence ladder, split files),
`datasets` (the pools and their split files), `sentences` (a problem as sentences with their numbers; new problems
assembled and checked), `constituents` and `coherence` (the SD rules' preconditions), `synthesis` (the rule table
and the SD synthetic set), `audit` (the proofreading audit's samples and tables), `proofread` (SD proofread by
hand), `augment` (alternative fragments, operations 1 and 2, the data ranker, Algorithm 1), `mathen` (the MathEN
ensemble), `training` (the methods and +DA chains), `sd` (the SD set as notebook 07 uses it, and its own tables),
`grid` (what a profile trains, and `plan`), `experiments` (the paper's tables and figures), `comparisons` (the
paired tests and intervals the findings judge by), `paper_numbers` (every value the paper prints), `findings` (its
claims, judged on our tables).
"""
