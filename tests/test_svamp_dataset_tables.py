"""Dataset statistics: templates, CLD (checked against a plain BLEU), MAWPS overlaps and greedy subsets."""
import math
import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from mwplib.mawps import overlap
from mwplib.svamp import dataset_tables
from mwplib.problem import Problem
from mwplib.profiles import PROFILES


def make(pid: str, text: str, equation: str = "x=1+2", prefix: tuple[str, ...] = ("+", "N0", "N1"),
         numbers: tuple[str, ...] = ("1", "2")) -> Problem:
    return Problem(id=pid, body=text, question="", equation=equation, answer=None, numbers=numbers,
                   prefix=prefix, meta={"source": f"test#{pid}"})


def reference_bleu(hyp: list[str], ref: list[str], max_n: int = 4) -> float:
    """Textbook sentence BLEU (Papineni et al.), uniform weights, no smoothing."""
    logs = []
    for n in range(1, max_n + 1):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        matches = sum(min(c, r[g]) for g, c in h.items())
        if not h or not matches:
            return 0.0
        logs.append(math.log(matches / sum(h.values())))
    bp = 1.0 if len(hyp) > len(ref) else math.exp(1 - len(ref) / len(hyp))
    return bp * math.exp(sum(logs) / max_n)


def test_lexicon_diversity_equals_one_minus_max_symmetric_bleu():
    rng = random.Random(0)
    vocab = list("abcdef")  # a small vocabulary forces repeated n-grams, exercising the clipping
    docs = [[rng.choice(vocab) for _ in range(rng.randint(2, 14))] for _ in range(25)]
    docs.append(list(docs[3]))  # an exact duplicate has LD 0
    expected = [1 - max((reference_bleu(d, e) + reference_bleu(e, d)) / 2
                        for j, e in enumerate(docs) if j != i) for i, d in enumerate(docs)]
    got = dataset_tables.lexicon_diversity(docs)
    np.testing.assert_allclose(got, expected, atol=1e-9)
    assert got[3] == pytest.approx(0.0) and got[-1] == pytest.approx(0.0)
    assert 0 < got.mean() < 1
    with pytest.raises(ValueError, match="at least 2"):
        dataset_tables.lexicon_diversity([["a"]])


def test_cld_tokens_normalise_numbers_names_and_stop_words():
    (tokens,) = dataset_tables.cld_tokens([make("a", "Mary bought 12 apples and she ate 3 of the apples.")])
    assert tokens.count("<num>") == 2 and "<person>" in tokens
    assert "apple" in tokens and "buy" in tokens
    assert not {"the", "and", "she", "of", ".", "12", "mary"} & set(tokens)
    (kept,) = dataset_tables.cld_tokens([make("a", "Mary bought 12 apples and she ate 3 of the apples.")],
                               remove_stop_words=False)
    assert {"the", "and", "of"} <= set(kept) and set(tokens) < set(kept)


def test_equation_templates_and_dataset_statistics(monkeypatch):
    problems = [make("a", "t", prefix=("+", "N0", "N1")), make("b", "t", prefix=("+", "N1", "N0")),
                make("c", "t", prefix=("-", "*", "N0", "N1", "N2"), numbers=("1", "2", "3")),
                make("d", "t", prefix=("*", "N0", "100"), numbers=("5",)),
                make("e", "t", prefix=())]  # a problem without a single-unknown equation is counted apart
    assert dataset_tables.equation_template(problems[1]) == ("+", "n", "n")
    assert dataset_tables.equation_template(problems[3]) == ("*", "n", "n")
    monkeypatch.setattr(dataset_tables, "corpus_lexicon_diversity", lambda ps: float(len(ps)))  # no spaCy here
    out = dataset_tables.dataset_statistics(problems)
    assert out["n_problems"] == 5 and out["n_with_equation"] == 4
    assert out["n_templates"] == 3
    assert out["avg_operators"] == pytest.approx((1 + 1 + 2 + 1) / 4)
    assert dataset_tables.dataset_statistics(problems, cld_sample=3)["cld_sample"] == 3
    assert list(dataset_tables.template_frequencies(problems)) == [2, 1, 1]
    with pytest.raises(ValueError, match="test#e"):
        dataset_tables.n_operators(problems[4])


def test_mawps_template_is_ordered_and_shared_across_the_equals_sign():
    same1 = make("a", "t", equation="X=((12.0*2.0)+7.0)")
    same2 = make("b", "t", equation="x = (6*15)+105")
    other = make("c", "t", equation="(6*15)+105=x")
    assert overlap.mawps_template(same1) == overlap.mawps_template(same2)
    assert overlap.mawps_template(same1) != overlap.mawps_template(other)
    assert overlap.mawps_template(make("d", "t", equation="70-x=27")) == "a - x = b"
    repeated = make("r", "t", equation="X=(7.0+7.0)")
    assert overlap.mawps_template(repeated) == "x = a + a"
    assert overlap.mawps_template(repeated, "positional") == "x = a + b"
    with pytest.raises(ValueError, match="test#e"):
        overlap.mawps_template(make("e", "t", equation="x=1=2"))


def test_template_overlap_counts_pairs_with_equal_templates():
    problems = [make("a", "t", equation="x=1+2"), make("b", "t", equation="x=5+9"),
                make("c", "t", equation="x=5-9"), make("d", "t", equation="x=7+7")]  # 7+7 is a + a
    assert overlap.template_overlap(problems) == pytest.approx(1 / 6)
    assert overlap.template_overlap(problems, "positional") == pytest.approx(3 / 6)  # 7+7 is a + b


def test_compare_templates_names_the_problems_behind_a_difference():
    first = [make("a", "t", prefix=("+", "N0", "N1")), make("b", "t", prefix=("-", "N0", "N1")),
             make("c", "t", prefix=("+", "N0", "-", "N0", "N1"))]
    second = [make("a", "t", prefix=("+", "N1", "N0")), make("b", "t", prefix=("-", "N0", "N1")),
              make("c", "t", prefix=("-", "+", "N0", "N0", "N1"))]
    diff = dataset_tables.compare_templates(first, second).set_index("template")
    assert set(diff.index) == {"+ n - n n", "- + n n n"}
    assert diff.loc["+ n - n n", "first"] == 1 and diff.loc["+ n - n n", "second"] == 0
    assert diff.loc["- + n n n", "problems"] == "c"


def test_lexical_overlap_is_mean_pairwise_jaccard_of_unigrams_and_bigrams():
    texts = ["Tom has 5 red apples.", "Tom has 3 green apples!", "A train goes 60 miles per hour.",
             "Ann has 5 red apples."]
    problems = [make(str(i), t) for i, t in enumerate(texts)]

    def grams(text):
        words = [w.strip(".!").lower() for w in text.split()]
        return set(words) | {f"{a} {b}" for a, b in zip(words, words[1:])}

    sets = [grams(t) for t in texts]
    jaccard = [len(a & b) / len(a | b) for a, b in combinations(sets, 2)]
    assert overlap.lexical_overlap(problems) == pytest.approx(np.mean(jaccard))
    assert overlap.lexical_overlap_matrix(problems)[0, 3] == pytest.approx(len(sets[0] & sets[3]) /
                                                                         len(sets[0] | sets[3]))


def test_reduce_overlap_lexical_is_the_greedy_minimiser_and_lowers_overlap():
    rng = random.Random(1)
    words = ["apples", "pears", "has", "buys", "sells", "Tom", "Ann", "more", "total", "each", "box"]
    problems = [make(str(i), " ".join(rng.choice(words) for _ in range(rng.randint(4, 9)))) for i in range(30)]
    subset = overlap.reduce_overlap(problems, 15, "lexical")
    matrix = overlap.lexical_overlap_matrix(problems)
    np.fill_diagonal(matrix, 0.0)
    chosen = [int(p.id) for p in subset]
    assert len(set(chosen)) == 15
    assert matrix[chosen[0]].sum() == pytest.approx(matrix.sum(axis=1).min())
    for step in range(1, 15):  # each pick minimises the summed overlap with the problems already chosen
        rest = [i for i in range(30) if i not in chosen[:step]]
        best = min(matrix[i, chosen[:step]].sum() for i in rest)
        assert matrix[chosen[step], chosen[:step]].sum() == pytest.approx(best)
    assert overlap.lexical_overlap(subset) < overlap.lexical_overlap(problems)


def test_reduce_overlap_template_adds_new_templates_first_and_is_seeded():
    equations = ["x=1+2"] * 6 + ["x=1-2"] * 3 + ["x=1*2", "x=1/2"]
    problems = [make(str(i), "t", equation=e) for i, e in enumerate(equations)]
    subset = overlap.reduce_overlap(problems, 6, "template", seed=0)
    templates = [overlap.mawps_template(p) for p in subset]
    assert len(set(templates[:4])) == 4  # every template once before any repeat
    assert Counter(templates) == Counter({"x = a + b": 2, "x = a - b": 2, "x = a * b": 1, "x = a / b": 1})
    assert [p.id for p in overlap.reduce_overlap(problems, 6, "template", seed=0)] == [p.id for p in subset]
    assert overlap.template_overlap(subset) < overlap.template_overlap(problems)
    with pytest.raises(ValueError, match="k=0"):
        overlap.reduce_overlap(problems, 0)
    with pytest.raises(ValueError, match="kind"):
        overlap.reduce_overlap(problems, 2, "grammar")


def test_overlap_table_subsamples_under_the_profile_and_lists_what_cannot_be_reproduced():
    rng = random.Random(2)
    words = ["apples", "pears", "has", "buys", "Tom", "Ann", "more", "each", "box", "red", "green"]
    ops = ["+", "-", "*"]
    subsets = {name: [make(f"{name}{i}", " ".join(rng.choice(words) for _ in range(6)),
                           equation=f"x={rng.randint(1, 9)}{rng.choice(ops)}{rng.randint(1, 9)}")
                      for i in range(n)] for name, n in (("SingleOp", 200), ("AddSub", 40))}
    table = overlap.overlap_table(subsets, PROFILES["smoke"])
    ours = table.set_index(["subset", "statistic"])
    assert ours.loc[("SingleOp", "lexical overlap of D (%)"), "n"] == 120  # smoke's overlap_limit
    assert ours.loc[("AddSub", "lexical overlap of D (%)"), "n"] == 40
    assert ours.loc[("SingleOp", "template overlap reduction (%)"), "paper"] == 2.8
    lex = ours.loc[("AddSub", "lexical overlap of D (%)"), "ours"]
    lex_reduced = ours.loc[("AddSub", "lexical overlap of D' k=|D|/2 (%)"), "ours"]
    assert lex_reduced < lex
    assert ours.loc[("AddSub", "lexical overlap reduction (%)"), "ours"] == pytest.approx(
        100 * (1 - lex_reduced / lex))
    assert np.isnan(ours.loc[("SimulEq-L", "template overlap reduction (%)"), "ours"])
    assert "ERG" in " ".join(table["note"])


def test_cld_parse_cache_is_keyed_by_the_parsing_code(tmp_path, monkeypatch):
    monkeypatch.setattr(dataset_tables.paths, "cache_dir", lambda name: tmp_path)

    def parse_a(texts):
        return [[("a", False)] for _ in texts]

    def parse_b(texts):
        return [[("b", False)] for _ in texts]

    problems = [make("p", "Mary bought 12 apples.")]
    monkeypatch.setattr(dataset_tables, "_parse_for_cld", parse_a)
    assert dataset_tables.cld_tokens(problems) == [("a",)]
    monkeypatch.setattr(dataset_tables, "_parse_for_cld", parse_b)
    assert dataset_tables.cld_tokens(problems) == [("b",)]  # not the cached parse of the old code
    assert len(list(tmp_path.iterdir())) == 2
