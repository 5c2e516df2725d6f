"""The SVAMP paper's published numbers (Patel et al. 2021, "Are NLP Models really able to Solve Simple Math Word
Problems?"), in one place: the tables of its notebooks print them beside ours (`dataset_tables`, `model_tables`,
`robustness_tables`, `construction`), so each published value is typed, and checked against the paper, once.
Their R is RoBERTa.
"""
from __future__ import annotations

from .prediction_analysis import SUBSETS

#: SVAMP Table 2 (5-fold CV accuracy, %) and Table 16 (Transformer): (model, "S"|"R", dataset) → paper value.
PAPER_ACCURACY: dict[tuple[str, str, str], float] = {
    ("seq2seq", "S", "mawps"): 79.7, ("seq2seq", "S", "asdiv-a"): 55.5,
    ("seq2seq", "R", "mawps"): 86.7, ("seq2seq", "R", "asdiv-a"): 76.9,
    ("gts", "S", "mawps"): 82.6, ("gts", "S", "asdiv-a"): 71.4,
    ("gts", "R", "mawps"): 88.5, ("gts", "R", "asdiv-a"): 81.2,
    ("graph2tree", "S", "mawps"): 83.7, ("graph2tree", "S", "asdiv-a"): 77.4,
    ("graph2tree", "R", "mawps"): 88.7, ("graph2tree", "R", "asdiv-a"): 82.2,
    ("transformer", "S", "mawps"): 77.9, ("transformer", "S", "asdiv-a"): 52.1,
    ("transformer", "R", "mawps"): 87.1, ("transformer", "R", "asdiv-a"): 77.7,
}

#: SVAMP's Majority Template Baseline (Table 2: 5-fold CV; Table 12: MAWPS+ASDiv-A → SVAMP), in %.
PAPER_MAJORITY_BASELINE = {"mawps": 17.7, "asdiv-a": 21.2, "svamp": 11.7}

#: SVAMP Table 3 (R models; Transformer from Table 17): question-removed 5-fold accuracy.
PAPER_TABLE3 = {("seq2seq", "mawps"): 77.4, ("seq2seq", "asdiv-a"): 58.7, ("gts", "mawps"): 76.2,
                ("gts", "asdiv-a"): 60.7, ("graph2tree", "mawps"): 77.7, ("graph2tree", "asdiv-a"): 64.4,
                ("transformer", "mawps"): 79.4, ("transformer", "asdiv-a"): 64.4}

#: SVAMP Table 4 (R models): accuracy with the question on the Easy / Hard parts.
PAPER_TABLE4 = {("seq2seq", "mawps"): (86.8, 86.7), ("seq2seq", "asdiv-a"): (91.3, 56.1),
                ("gts", "mawps"): (92.6, 71.7), ("gts", "asdiv-a"): (91.6, 65.3),
                ("graph2tree", "mawps"): (93.4, 71.0), ("graph2tree", "asdiv-a"): (92.8, 63.3)}

#: SVAMP Table 5: the constrained model (FFN + LSTM decoder), 5-fold accuracy; (S, R) per dataset.
PAPER_TABLE5 = {"mawps": (75.1, 77.9), "asdiv-a": (46.3, 51.2)}
#: SVAMP Table 12: the constrained model trained on MAWPS + ASDiv-A, tested on SVAMP; (S, R).
PAPER_TABLE12 = (17.5, 18.3)

#: SVAMP Table 7: group → (examples in ASDiv-A, selected seed examples).
PAPER_TABLE7 = {"Addition": (278, 28), "Subtraction": (362, 33), "Multiplication": (188, 19),
                "Division": (176, 20)}

#: SVAMP Table 9 as published (Patel et al. 2021, §5.2).
PAPER_TABLE9: dict[str, dict[str, float]] = {
    "MAWPS": {"n_problems": 2373, "n_templates": 39, "avg_operators": 1.78, "cld": 0.26},
    "ASDiv-A": {"n_problems": 1218, "n_templates": 19, "avg_operators": 1.23, "cld": 0.50},
    "SVAMP": {"n_problems": 1000, "n_templates": 26, "avg_operators": 1.24, "cld": 0.22},
}

#: SVAMP Tables 10 and 18: trained on MAWPS + ASDiv-A, tested on SVAMP subsets; (S, R) per model.
PAPER_TABLE10 = {
    "seq2seq": dict(zip(SUBSETS, [(24.2, 40.3), (25.4, 42.6), (20.3, 33.1), (28.5, 41.9), (22.3, 35.1),
                                  (17.9, 38.7), (29.3, 56.3)])),
    "gts": dict(zip(SUBSETS, [(30.8, 41.0), (31.7, 44.6), (27.9, 29.7), (35.8, 36.3), (26.7, 36.9), (29.2, 38.7),
                              (39.5, 61.1)])),
    "graph2tree": dict(zip(SUBSETS, [(36.5, 43.8), (42.9, 51.9), (16.1, 17.8), (24.9, 36.8), (41.3, 41.3),
                                     (27.4, 35.8), (40.7, 65.3)])),
    "transformer": dict(zip(SUBSETS, [(18.4, 38.9), (18.6, 40.5), (17.8, 33.9), (22.3, 36.3), (17.1, 37.5),
                                      (17.9, 28.3), (18.6, 53.3)]))}

#: SVAMP Table 11 (R models; Transformer from Table 17): SVAMP w/o questions, ASDiv-A w/o questions.
PAPER_TABLE11 = {"seq2seq": (29.2, 58.7), "gts": (28.6, 60.7), "graph2tree": (30.8, 64.4),
                 "transformer": (25.3, 64.4)}

#: SVAMP Table 13 / 14 as published: label → (# removed examples, change in accuracy).
PAPER_TABLE13 = {"Question Sensitivity": (462, 13.7), "Reasoning Ability": (649, -3.3),
                 "Structural Invariance": (467, 4.5)}
PAPER_TABLE14 = {"11": (325, 7.3), "12": (69, 1.5), "13": (74, 1.3), "21": (264, 5.5), "22": (149, 3.2),
                 "23": (255, -10.2), "31": (107, 2.3), "32": (152, -3.3), "33": (281, 6.9)}

#: SVAMP Table 15 (Graph2Tree R): accuracy by numbers in the text.
PAPER_TABLE15 = {"ASDiv-A": {"2": 93.3, "3": 59.0, "4": 47.5}, "SVAMP": {"2": 78.3, "3": 25.4, "4": 25.4}}

#: §5.3: 5-fold CV on SVAMP with MAWPS + ASDiv-A + four SVAMP folds for training, best model "about 65%".
PAPER_SVAMP_CV = 65.0

#: The paper's best model on SVAMP, whose ablations Tables 13–15 report (§5.3).
PAPER_BEST_MODEL = "Graph2Tree (R, RoBERTa)"

#: SVAMP Tables 19/20, "Avg Time/Epoch" (s) on the authors' P100 GPUs, dataset unstated: (model, "S"|"R") → s.
PAPER_SECONDS_PER_EPOCH: dict[tuple[str, str], float] = {
    ("seq2seq", "S"): 10, ("seq2seq", "R"): 40, ("gts", "S"): 60, ("gts", "R"): 120, ("graph2tree", "S"): 60,
    ("graph2tree", "R"): 120, ("constrained", "S"): 10, ("constrained", "R"): 15, ("transformer", "S"): 10,
    ("transformer", "R"): 30,
}
