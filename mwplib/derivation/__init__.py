"""Derivation-based evaluation of algebra word problem solvers (Upadhyay & Chang 2017), notebook 06.

Modules: `datasets` (DRAW-1K, ALG-514 and DOLPHIN-L with their annotations), `templates` (parsing), `solve`
(exact Solve), `derivations` (z = (T, A) from annotations), `equivalence` (Algorithm 1), `metrics` (solution /
equation / derivation accuracy), `reconcile` (grouping equivalent templates), `features` + `perceptron` (the
template-first solver), `runs` (the stored runs), `experiments` (the paper's tables).
"""
