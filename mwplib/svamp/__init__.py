"""SVAMP (Patel et al. 2021, "Are NLP Models really able to Solve Simple Math Word Problems?"), notebooks 00–05.

Modules: `paper_numbers` (every value the paper prints), `dataset_tables` (Table 9: templates, operators, CLD),
`model_tables` (Tables 2, 16, 19/20: the models, S and R, against the majority template), `robustness_tables`
(Tables 3–5 and 10–15: without the question, on SVAMP), `prediction_analysis` (Easy/Hard, removal ablations,
subsets), `attention` + `attention_examples` (Tables 6 and 26: what the constrained model attends to),
`construction` + `variations` (§5.1: seeds and the variations made from them), `findings` (the paper's claims,
drawn again from our tables).
"""
