"""Lan et al. 2022's published numbers ("Improving Compositional Generalization in Math Word Problem Solving"), in
one place: notebook 07's tables print them beside ours (`experiments`, `audit`), so each value is typed, and checked
against the paper, once.
"""
from __future__ import annotations

#: each pool's name as the paper's tables print it
PAPER_NAMES = {"mawps": "MAWPS", "math23k": "Math23K", "sd": "SD"}
#: Table I as printed: pool, split → train size, test size, LR, DBCA^a, DBCA^c
PAPER_TABLE1 = {("Math23K", "I.I.D."): (18543, 4619, 0.99, 0.00, 0.20),
                ("Math23K", "ComDiv"): (18543, 4619, 1.01, 0.00, 0.69),
                ("MAWPS", "I.I.D."): (1899, 474, 1.01, 0.00, 0.09),
                ("MAWPS", "ComDiv"): (1899, 474, 0.91, 0.01, 0.77),
                ("SD", "ComDiv"): (1078, 745, 0.76, 0.01, 0.82)}
#: Table II as printed: method → (Math23K I.I.D., ComDiv, MAWPS I.I.D., ComDiv, SD valid, SD test)
PAPER_TABLE2 = {"LSTM": (67.4, 47.4, 74.5, 36.5, 93.7, 7.8), "Transformer": (58.0, 40.3, 72.6, 40.1, 91.0, 6.6),
                "BERTGen": (68.1, 43.0, 70.7, 43.0, 96.9, 9.6), "GPT-2": (70.4, 49.7, 62.2, 31.9, 95.1, 8.3),
                "MathEN": (66.5, 46.9, 76.4, 40.9, 94.6, 7.5), "GTS": (71.5, 51.2, 76.9, 48.4, 96.9, 7.9),
                "MathEN+DA": (67.3, 47.5, 77.6, 42.4, 95.5, 17.4), "GTS+DA": (72.1, 52.0, 78.1, 49.8, 96.4, 23.5)}
#: Table II's Rel. Gap columns as printed (Math23K, MAWPS, SD): a few differ from the printed accuracies' ratio
PAPER_REL_GAP = {method: dict(zip(("Math23K", "MAWPS", "SD"), gaps)) for method, gaps in {
    "LSTM": (0.42, 1.04, 11.0), "Transformer": (0.44, 0.81, 12.8), "BERTGen": (0.58, 0.64, 9.09),
    "GPT-2": (0.42, 0.95, 10.5), "MathEN": (0.42, 0.87, 11.7), "GTS": (0.39, 0.59, 11.3),
    "MathEN+DA": (0.42, 0.83, 4.5), "GTS+DA": (0.38, 0.57, 3.1)}.items()}
#: Table III: method → (structural, lexical) accuracy on SD test
PAPER_TABLE3 = {"MathEN": (3.0, 46.3), "GTS": (2.9, 51.3), "MathEN+DA": (14.2, 47.5), "GTS+DA": (16.8, 63.8)}
#: Table IV: ablation of MathEN+DA → (Math23K-ComDiv, MAWPS-ComDiv)
PAPER_TABLE4 = {"+DA": (47.5, 42.4), "− DataRanker": (46.6, 41.4), "− Operation 1": (47.3, 41.8),
                "− Operation 2": (47.2, 41.6)}
#: the paper's compound divergence of its ComDiv splits (Table I), which our one-draw ComDiv splits aim at
#: (`datasets.make_splits`); the pooled ComDiv splits aim at no value: they are the greedy maximum of the mean
#: divergence over several k-means draws (`datasets.make_pooled_splits`) and land above these
PAPER_COMDIV = {"mawps": 0.77, "math23k": 0.69}
#: Lan et al.'s sentence, quoted beside the other convention in Table I
PAPER_ALPHA_SENTENCE = ("Following previous implementation, α in DBCA is set as 0.1 and 0.5 for DBCA^a and "
                        "DBCA^c, respectively.")
#: what the paper reports for its own generated data: SD proofread by hand to valid (§III-B); 83–84 % of the
#: augmented problems judged qualified by its raters (§V-D)
PAPER_SHARE = {"SD": "proofread by hand (§III-B)", "augmentation": "83–84 % qualified (§V-D)"}
