"""Each solver learns a fixed 20-problem set; beam search emits only well-formed expressions."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from mwplib import expr
from mwplib.models import build_model, paper_config
from mwplib.models.base import collate
from mwplib.models.beam import beam_search
from mwplib.problem import Problem
from mwplib.train import make_optimizer, predict, train_model, train_step

_TEMPLATES = (
    ("Tom has {a} apples and buys {b} more apples.", "How many apples does he have now?", ("+", "N0", "N1")),
    ("Ann had {a} pens and lost {b} of them.", "How many pens are left?", ("-", "N0", "N1")),
    ("There are {a} boxes with {b} cups in every box.", "How many cups are there?", ("*", "N0", "N1")),
    ("{a} sweets are shared equally among {b} kids.", "How many sweets does each kid get?", ("/", "N0", "N1")),
    ("A farm has {a} cows, {b} pigs and {c} goats.", "How many animals are on the farm?", ("+", "+", "N0", "N1", "N2")),
    ("Sam baked {a} cakes, sold {b} and gave half of the rest away.", "How many cakes did he give away?",
     ("/", "-", "N0", "N1", "2")),
)


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models run fastest on one thread, and a shared CPU makes more threads stall each other."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def toy_problems(n: int = 20) -> list[Problem]:
    """A fixed set of `n` easy problems over six templates (one uses the constant 2)."""
    problems = []
    for i in range(n):
        body, question, prefix = _TEMPLATES[i % len(_TEMPLATES)]
        values = (12 + 3 * i, 2 + i % 7, 3 + i % 5)
        numbers = tuple(str(v) for v, k in zip(values, "abc") if "{" + k + "}" in body)
        bindings = {f"N{j}": v for j, v in enumerate(numbers)}
        answer = float(expr.evaluate(expr.parse_prefix(list(prefix)), bindings))
        problems.append(Problem(f"toy-{i}", body.format(a=values[0], b=values[1], c=values[2]), question, "",
                                answer, numbers, prefix))
    return problems


def fast_config(model: str, **overrides: object):
    """The paper's scratch config made small and dropout-free, so 20 problems are learnt in seconds."""
    base = paper_config(model)
    return replace(base, **{"emb_dim": 32, "hidden": 128, "dropout": 0.0, "lr": 5e-3, "emb_lr": 5e-3,
                            "batch_size": 4, "layers": 1, **overrides})


#: epochs (of 5 steps each) within which each model must reach 100 % training accuracy
LEARNING_BUDGET = {"seq2seq": 20, "gts": 20, "graph2tree": 20, "transformer": 30, "constrained": 40, "convs2s": 20}


@pytest.mark.parametrize("name", sorted(LEARNING_BUDGET))
def test_model_learns_twenty_problems(name: str) -> None:
    problems = toy_problems()
    config = fast_config(name)
    model = build_model(name, config, problems)
    result = train_model(model, problems, problems, config, epochs=LEARNING_BUDGET[name], seed=0, beam=1,
                         val_fraction=0.0, progress=False)
    assert result.history[-1]["loss"] < result.history[0]["loss"] / 5
    assert result.peer_test_accuracy == 1.0, result.history


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU (the full grid runs on one when lent)")
@pytest.mark.parametrize("name", sorted(LEARNING_BUDGET))
def test_model_trains_and_decodes_on_cuda(name: str) -> None:
    """Every tensor a step and beam search index meets lives on one device (GTS once indexed CPU with CUDA)."""
    problems = toy_problems(12)
    config = fast_config(name)
    result = train_model(build_model(name, config, problems), problems, problems, config, epochs=2, seed=0, beam=2,
                         val_fraction=0.0, progress=False, device="cuda")
    assert len(result.records) == len(problems)


@pytest.mark.parametrize("name", sorted(LEARNING_BUDGET))
def test_beam_search_emits_only_well_formed_expressions(name: str) -> None:
    """An untrained model's beams (random scores) still parse, use only the problem's slots, fit max_len."""
    problems = toy_problems(12)
    model = build_model(name, fast_config(name), problems)
    max_len = 7
    for beam in (1, 4):
        predictions = predict(model, [model.prepare(p) for p in problems], beam=beam, max_len=max_len)
        assert len(predictions) == len(problems)
        for problem, pred in zip(problems, predictions):
            assert len(pred.prefix) <= max_len
            node = expr.parse_prefix(list(pred.prefix))  # raises on a malformed expression
            slots = [t for t in expr.leaves(node) if t.startswith("N")]
            assert all(int(s[1:]) < len(problem.numbers) for s in slots), pred.prefix


def test_beam_search_returns_the_best_scoring_beam() -> None:
    """A wider beam never finds a lower-probability expression than greedy search on the same model."""
    problems = toy_problems(12)
    model = build_model("seq2seq", fast_config("seq2seq"), problems).eval()
    examples = [model.prepare(p) for p in problems]
    greedy = predict(model, examples, beam=1, max_len=7)
    wide = predict(model, examples, beam=5, max_len=7)
    assert all(w.logprob >= g.logprob - 1e-5 for w, g in zip(wide, greedy))
    # the reported log-probability is the model's own score of that sequence
    batch = collate(examples[:1], model.embedder)
    with torch.no_grad():
        decoder, state = model.decoder(batch, 1)
        forced = beam_search(decoder, state, batch, model.out_vocab, 1, 7)[0]
    assert forced.prefix == greedy[0].prefix and abs(forced.logprob - greedy[0].logprob) < 1e-5


@pytest.mark.parametrize("name", ["seq2seq", "gts", "graph2tree", "transformer", "convs2s"])
def test_a_prediction_does_not_depend_on_the_problems_beside_it(name: str) -> None:
    """A two-number problem decodes alike alone (as `Solver.solve` does) and batched with a three-number one:
    the slot it lacks must not take its value from a batchmate's padding."""
    problems = toy_problems(6)
    model = build_model(name, fast_config(name), problems).eval()
    two, three = model.prepare(problems[0]), model.prepare(problems[4])
    assert (len(two.num_pos), len(three.num_pos)) == (2, 3)
    alone = predict(model, [two], beam=3, max_len=7)[0]
    batched = predict(model, [two, three], beam=3, max_len=7)[0]
    assert alone.prefix == batched.prefix and abs(alone.logprob - batched.logprob) < 1e-5


def test_constrained_model_returns_attention_per_decoding_step() -> None:
    problems = toy_problems(6)
    model = build_model("constrained", fast_config("constrained"), problems)
    for beam in (1, 3):
        predictions = predict(model, [model.prepare(p) for p in problems], beam=beam, max_len=7)
        assert len(predictions) == len(problems)
        for problem, pred in zip(problems, predictions):
            n_words = len(model.prepare(problem).inputs["ids"])
            assert len(pred.attention) == len(pred.prefix)
            assert all(len(row) == n_words and abs(sum(row) - 1) < 1e-4 for row in pred.attention)
    seq2seq = build_model("seq2seq", fast_config("seq2seq"), problems)
    assert predict(seq2seq, [seq2seq.prepare(problems[0])], beam=1, max_len=7)[0].attention is None


def test_constrained_model_tells_slots_apart_by_their_tokens() -> None:
    problems = toy_problems(6)
    constrained = build_model("constrained", fast_config("constrained"), problems)
    seq2seq = build_model("seq2seq", fast_config("seq2seq"), problems)
    example, plain = constrained.prepare(problems[4]), seq2seq.prepare(problems[4])  # three numbers
    slot_ids = [example.inputs["ids"][i] for i in example.num_pos]
    assert len(set(slot_ids)) == 3 and constrained.embedder.vocab.ids(["<unk>"])[0] not in slot_ids
    assert len({plain.inputs["ids"][i] for i in plain.num_pos}) == 1  # order-aware models share one NUM token
    indexed = build_model("transformer", fast_config("transformer", indexed_numbers=True), problems)
    example = indexed.prepare(problems[4])
    assert len({example.inputs["ids"][i] for i in example.num_pos}) == 3  # the probe: slots named, as in SVAMP


@pytest.mark.parametrize("name", ["seq2seq", "gts", "graph2tree", "transformer", "convs2s"])
def test_only_minilm_and_mpnet_depart_from_the_paper_encoder_learning_rate(name: str) -> None:
    from mwplib.models.config import MINILM_ENCODER_LR, MPNET_ENCODER_LR

    assert paper_config(name, "minilm").emb_lr == MINILM_ENCODER_LR
    assert paper_config(name, "mpnet").emb_lr == MPNET_ENCODER_LR
    roberta = paper_config(name, "roberta-base").emb_lr
    assert roberta not in (MINILM_ENCODER_LR, MPNET_ENCODER_LR) and roberta <= 1e-5  # the paper's (Table 19)
    scratch = paper_config(name)
    assert scratch.emb_lr == scratch.lr  # scratch embeddings train at the model's rate


def test_transformer_incremental_decoding_matches_the_full_decoder() -> None:
    """Beam search's cached step must give the log-probabilities `nn.TransformerDecoder` gives for the last
    position of the whole history, also after rows are reordered (padded memories included)."""
    problems = toy_problems(6)
    model = build_model("transformer", fast_config("transformer", layers=2), problems).eval()
    batch, beam = collate([model.prepare(p) for p in problems], model.embedder), 3
    assert not bool(batch.mask.all())  # some memories are padded
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        decoder, state = model.decoder(batch, beam)
        memory, mask = model._memory(batch).repeat_interleave(beam, 0), batch.mask.repeat_interleave(beam, 0)
        history = torch.full((len(problems) * beam, 1), model.sos)
        for _ in range(6):
            expected = torch.log_softmax(model._logits(memory, mask, history)[:, -1], -1)
            torch.testing.assert_close(decoder.step(state)[0], expected, atol=1e-5, rtol=1e-5)
            parents = (torch.randint(beam, (len(problems), beam), generator=generator)
                       + torch.arange(len(problems))[:, None] * beam).flatten()
            tokens = torch.randint(len(model.out_vocab), parents.shape, generator=generator)
            state = decoder.advance(state, parents, tokens, torch.zeros_like(tokens, dtype=torch.bool))
            history = torch.cat([history[parents], tokens[:, None]], 1)


def test_pretrained_input_dropout_is_a_switch_for_pretrained_embeddings_only() -> None:
    config = fast_config("gts", dropout=0.5)
    off = replace(config, pretrained_input_dropout=False)
    assert (config.input_dropout(True), off.input_dropout(True), off.input_dropout(False)) == (0.5, 0.0, 0.5)
    model = build_model("gts", off, toy_problems(6))  # scratch embeddings: their dropout stays
    assert model.encoder.dropout.p == 0.5


def test_gts_trains_with_a_gru_encoder_and_other_models_refuse_the_field() -> None:
    config = replace(fast_config("gts"), encoder_cell="gru")
    problems = toy_problems(8)
    model = build_model("gts", config, problems)
    assert isinstance(model.encoder.rnn, torch.nn.GRU) and "encoder.gru.weight_ih_l0" in model.state_dict()
    batch = collate([model.prepare(p) for p in problems[:4]], model.embedder)
    assert math.isfinite(train_step(model, make_optimizer(model, config), batch, config.max_grad_norm))
    with pytest.raises(TypeError, match="encoder_cell"):
        replace(fast_config("seq2seq"), encoder_cell="gru")
