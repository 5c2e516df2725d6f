"""MathEN: equation normalisation, the max-probability ensemble, and its ConvS2S member's own checks (the
shared model tests in test_models.py cover learning, beam search and batch independence)."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest
import torch

from mwplib import expr
from mwplib.compositional.mathen import MEMBERS, ensemble, normalize_prefix, normalized
from mwplib.models import MODELS, build_model, paper_config
from mwplib.models.base import collate
from mwplib.models.convs2s import ConvS2SConfig
from mwplib.problem import Problem

from test_models import fast_config, one_thread, toy_problems  # noqa: F401 (autouse fixture)


def p(text: str) -> tuple[str, ...]:
    return tuple(text.split())


@pytest.mark.parametrize("variants, normal", [
    (["+ N0 N1", "+ N1 N0"], "+ N0 N1"),
    (["* + N2 N0 N1", "* N1 + N0 N2"], "* + N0 N2 N1"),  # operands ordered by their leaves, recursively
    (["+ N0 + N1 N2", "+ + N2 N0 N1", "+ N2 + N1 N0"], "+ + N0 N1 N2"),  # chains regrouped from the left
    (["* 2 N0", "* N0 2"], "* N0 2"),  # constants after slots
    (["+ 10 2", "+ 2 10"], "+ 2 10"),  # constants by value, not as strings
    (["+ N2 - N1 N0", "+ - N1 N0 N2"], "+ - N1 N0 N2"),  # a chain stops at another operator
    (["/ N0 + N2 N1"], "/ N0 + N1 N2"),
])
def test_commuted_operands_of_plus_and_times_give_one_form(variants: list[str], normal: str) -> None:
    assert {normalize_prefix(p(v)) for v in variants} == {p(normal)}


@pytest.mark.parametrize("prefix", ["- N1 N0", "/ N1 N0", "^ N1 N0", "- - N2 N0 N1", "/ N0 / N1 N2"])
def test_minus_divide_and_power_keep_their_operand_order(prefix: str) -> None:
    assert normalize_prefix(p(prefix)) == p(prefix)


def _random_tree(rng: random.Random, depth: int) -> expr.Node:
    if depth == 0 or rng.random() < 0.3:
        return expr.Node(rng.choice(["N0", "N1", "N2", "N3", "2", "0.5", "100"]))
    return expr.Node(rng.choice("+-*/"), (_random_tree(rng, depth - 1), _random_tree(rng, depth - 1)))


def _shuffled(node: expr.Node, rng: random.Random) -> expr.Node:
    """An equivalent tree: operands of + and × swapped at random, and chains regrouped to the right at random."""
    if node.is_leaf:
        return node
    left, right = (_shuffled(child, rng) for child in node.children)
    if node.value in "+*" and rng.random() < 0.5:
        left, right = right, left
    if node.value in "+*" and left.value == node.value and rng.random() < 0.5:  # (a ∘ b) ∘ c → a ∘ (b ∘ c)
        return expr.Node(node.value, (left.children[0], expr.Node(node.value, (left.children[1], right))))
    return expr.Node(node.value, (left, right))


def test_normalisation_is_one_form_per_equivalent_tree_and_keeps_the_value() -> None:
    rng = random.Random(0)
    bindings = {"N0": "3", "N1": "7", "N2": "0.25", "N3": "11"}
    for _ in range(300):
        tree = _random_tree(rng, 4)
        normal = normalize_prefix(expr.to_prefix(tree))
        assert normalize_prefix(normal) == normal  # idempotent
        assert normalize_prefix(expr.to_prefix(_shuffled(tree, rng))) == normal
        try:
            value = expr.evaluate(tree, bindings)
        except expr.ExpressionError:  # division by zero stays one in every form
            continue
        assert expr.evaluate(expr.parse_prefix(list(normal)), bindings) == value


@pytest.mark.parametrize("prefix, message", [("+ N0", "lacks operands"),
                                             ("+ N0 x", "'x' is neither a number slot nor a constant")])
def test_a_malformed_prefix_raises(prefix: str, message: str) -> None:
    with pytest.raises(expr.ExpressionError, match=message):
        normalize_prefix(p(prefix))


def test_normalized_keeps_the_problem_and_its_answer() -> None:
    problem = toy_problems(6)[4]  # + + N0 N1 N2
    commuted = replace(problem, prefix=p("+ N2 + N1 N0"))
    result = normalized(commuted)
    assert result.prefix == p("+ + N0 N1 N2")
    assert (result.id, result.text, result.numbers, result.answer) == (problem.id, problem.text, problem.numbers,
                                                                        problem.answer)
    bindings = {f"N{i}": n for i, n in enumerate(result.numbers)}
    assert expr.answers_match(expr.evaluate(expr.parse_prefix(list(result.prefix)), bindings), problem.answer)
    system = Problem("draw-1", "body", "", "x + y = 3", None)  # no single prefix: nothing to normalise
    assert normalized(system) is system


def test_normalized_names_the_record_it_cannot_normalise() -> None:
    problem = replace(toy_problems(1)[0], prefix=p("+ N0 N5"), meta={"source": "toy.json#3"})
    with pytest.raises(ValueError, match=r"toy\.json#3.*N5"):
        normalized(problem)


def _records(logprobs: dict[str, float], tag: str) -> list[dict]:
    return [{"id": i, "prefix": [tag], "answer": None, "correct": tag == "right", "logprob": lp}
            for i, lp in logprobs.items()]


def test_ensemble_answers_each_problem_with_its_most_probable_member() -> None:
    first = _records({"a": -1.0, "b": -3.0, "c": -2.0}, "m0")
    second = _records({"c": -0.5, "b": -4.0, "a": -1.0}, "m1")  # other order; "a" ties with the first member
    third = _records({"b": -2.5, "a": -9.0, "c": float("-inf")}, "m2")
    chosen = ensemble([first, second, third])
    assert [r["id"] for r in chosen] == ["a", "b", "c"]  # the first member's order
    assert [(r["member"], r["prefix"], r["logprob"]) for r in chosen] == [(0, ["m0"], -1.0), (2, ["m2"], -2.5),
                                                                          (1, ["m1"], -0.5)]
    assert "member" not in first[0]  # the members' records are left as they were
    swapped = {r["id"]: r for r in ensemble([second, first])}
    assert (swapped["a"]["member"], swapped["a"]["prefix"]) == (0, ["m1"])  # a tie goes to the earlier member


@pytest.mark.parametrize("members, message", [
    ([], "at least one member"),
    ([_records({"a": -1.0, "b": -2.0}, "m0"), _records({"a": -1.0, "c": -2.0}, "m1")],
     r"member 1 .*1 missing .*'b'.*1 extra .*'c'"),
    ([_records({"a": -1.0}, "m0"), _records({"a": -1.0, "b": -2.0}, "m1")], r"member 1 .*1 extra"),
    ([_records({"a": -1.0}, "m0") * 2], "member 0, problem 'a': appears twice"),
    ([_records({"a": float("nan")}, "m0")], "member 0, problem 'a': log-probability nan"),
    ([[{"id": "a"}]], "member 0, problem 'a': log-probability None"),
])
def test_ensemble_refuses_members_that_do_not_line_up(members: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ensemble(members)


def test_mathen_members_are_registered_models() -> None:
    assert set(MEMBERS) <= set(MODELS)


def test_convs2s_paper_config_follows_mathen_and_needs_an_odd_kernel() -> None:
    config = paper_config("convs2s")
    assert (config.emb_dim, config.hidden, config.layers, config.kernel, config.dropout, config.lr,
            config.batch_size, config.epochs) == (128, 512, 4, 3, 0.5, 1e-3, 32, 100)
    with pytest.raises(ValueError, match="kernel must be odd"):
        ConvS2SConfig(kernel=2)


def test_convs2s_incremental_decoding_matches_the_full_decoder() -> None:
    """A beam-search step (each layer's window of k − 1 earlier inputs) must give the log-probabilities the
    decoder gives for the last position of the whole history, also after rows are reordered."""
    problems = toy_problems(6)
    model = build_model("convs2s", fast_config("convs2s", layers=3, kernel=3), problems).eval()
    batch, beam = collate([model.prepare(p) for p in problems], model.embedder), 3
    assert not bool(batch.mask.all())  # some problems are padded
    generator = torch.Generator().manual_seed(0)
    net = model.decoder_net
    with torch.no_grad():
        decoder, state = model.decoder(batch, beam)
        memory = model._memory(batch).repeat(beam)
        history = torch.full((len(problems) * beam, 1), net.sos)
        for _ in range(7):  # longer than the layers' receptive field
            logits, _ = net(history, 0, memory, net.empty_windows(history.shape[0], history.device))
            torch.testing.assert_close(decoder.step(state)[0], torch.log_softmax(logits[:, -1], -1),
                                       atol=1e-5, rtol=1e-5)
            parents = (torch.randint(beam, (len(problems), beam), generator=generator)
                       + torch.arange(len(problems))[:, None] * beam).flatten()
            tokens = torch.randint(len(model.out_vocab), parents.shape, generator=generator)
            state = decoder.advance(state, parents, tokens, torch.zeros_like(tokens, dtype=torch.bool))
            history = torch.cat([history[parents], tokens[:, None]], 1)


def test_convs2s_encoder_reads_a_problem_alike_alone_and_padded() -> None:
    """Padding is zeroed before every convolution, so a short problem's keys and values do not change when a
    longer one pads it (with dropout off)."""
    problems = toy_problems(6)
    model = build_model("convs2s", fast_config("convs2s", layers=2), problems).eval()
    short, long = model.prepare(problems[0]), model.prepare(problems[5])
    assert short.n_words < long.n_words
    with torch.no_grad():
        alone = model._memory(collate([short], model.embedder))
        padded = model._memory(collate([short, long], model.embedder))
    n = short.n_words
    torch.testing.assert_close(padded.keys[0, :n], alone.keys[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(padded.values[0, :n], alone.values[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(padded.scale[0], alone.scale[0])
