"""Derivation-based evaluation of algebra word problem solvers (Upadhyay & Chang 2017), notebook 05.

Modules: `templates` (parsing), `solve` (exact Solve), `derivations` (z = (T, A) from annotations),
`equivalence` (Algorithm 1), `metrics` (solution / equation / derivation accuracy), `reconcile`
(grouping equivalent templates), `features` + `perceptron` (the template-first solver), `experiments`
(the paper's tables).
"""
