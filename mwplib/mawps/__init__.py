"""MAWPS (Koncel-Kedziorski et al. 2016): how much its datasets repeat themselves, notebook 00.

Modules: `overlap` (lexical and template overlap, the reduced-overlap subsets, Table 1 as far as it can be
reproduced), `paper_numbers` (what the paper prints).
"""
