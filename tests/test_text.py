"""Tokenisation, number slots and the alignment of numbers to pretrained sub-tokens."""
from __future__ import annotations

import pytest
import torch
from torch import nn

from mwplib.models.embedders import PretrainedEmbedder, TunedRows, _tokenizer, pool_subwords
from mwplib.text import OutputVocab, align_subwords, encode_text, extract_numbers, split_sentences, tokenize
from mwplib.problem import Problem


def test_numbers_are_found_in_order_and_by_value() -> None:
    enc = encode_text("Tom has 1,200 apples, 3/4 pie and .5 kg; the 5th box holds 2.5 and 5.",
                      ["1200", "3/4", "0.5", "2.5", "5"])
    assert [enc.words[i] for i in enc.num_pos] == ["1200", "3/4", ".5", "2.5", "5"]
    assert enc.masked.count("NUM") == 5 and "5th" in enc.masked  # an ordinal is a word, not a quantity


def test_negative_numbers_keep_their_sign_as_a_word() -> None:
    enc = encode_text("Find the product of -2 , -15 and 4 .", ["-2", "-15", "4"])
    assert [enc.words[i] for i in enc.num_pos] == ["2", "15", "4"]
    assert enc.words[enc.num_pos[0] - 1] == "-"


def test_sentences_end_after_each_sentence_end_token() -> None:
    tokens = "Tom has 3 . Ann has 4 ! How many ? ?".split()
    assert split_sentences(iter(tokens)) == [["Tom", "has", "3", "."], ["Ann", "has", "4", "!"], ["How", "many", "?"],
                                             ["?"]]
    assert split_sentences(["no", "end", "3.5"]) == [["no", "end", "3.5"]] and split_sentences([]) == []


def test_masked_csv_text_maps_slots_directly() -> None:
    enc = encode_text("he has number1 pens and number0 cups .", ["7", "9"])
    assert enc.num_pos == (5, 2) and enc.words[2] == "9"


def test_indexed_words_name_each_slot_as_svamp_masks_them() -> None:
    enc = encode_text("he has number1 pens and number0 cups .", ["7", "9"])
    assert enc.indexed == ("he", "has", "number1", "pens", "and", "number0", "cups", ".")
    assert encode_text("Tom has 3 and 4 .", ["3", "4"]).indexed == ("tom", "has", "number0", "and", "number1", ".")


def test_missing_number_names_the_record() -> None:
    with pytest.raises(ValueError, match="file.csv#row3"):
        encode_text("Tom has 4 apples.", ["4", "6"], "file.csv#row3")


def test_extract_numbers_and_tokenize() -> None:
    assert extract_numbers("Pay $1,000 for 2.50 kg") == ("1000", "2.5")
    assert tokenize("Tom's dog ate 3 bones!") == ["tom's", "dog", "ate", "3", "bones", "!"]


def test_output_vocab_learns_constants_from_training_split() -> None:
    problems = [Problem("a", "x 3 4", "", "", 1.0, ("3", "4"), ("/", "N0", "100")),
                Problem("b", "x 3", "", "", 1.0, ("3",), ("*", "N0", "0.5"))]
    vocab = OutputVocab.from_problems(problems)
    assert vocab.constants == ("0.5", "100") and vocab.max_slots == 2
    assert vocab.tokens(vocab.ids(["*", "N1", "0.5"])) == ("*", "N1", "0.5")
    with pytest.raises(ValueError, match="unknown to the output vocabulary"):
        vocab.ids(["+", "N0", "7"], "b")


def _installed(encoder: str) -> bool:
    from mwplib.models.mpnet import NotInstalled, model_path

    try:
        return encoder != "mpnet" or model_path().exists()
    except NotInstalled:
        return False


@pytest.mark.parametrize("encoder", ["minilm", "mpnet"])
def test_numbers_align_to_their_own_subtokens(encoder) -> None:
    """Word positions index words; each number's pooled vector is the mean of exactly its sub-tokens."""
    if not _installed(encoder):
        pytest.skip(f"{encoder} is not installed here (python -m mwplib install {encoder})")
    words = ["unbelievably", ",", "she", "has", "12.5", "apples", "and", "1200", "pears"]
    tok = _tokenizer(encoder)
    alignment = align_subwords(tok, words)
    for index in (4, 7):
        pieces = [alignment.input_ids[i] for i, w in enumerate(alignment.word_of) if w == index]
        assert tok.decode(pieces).replace(" ", "") == words[index]
    # sub-token positions differ from word positions (the bug of indexing one by the other would show)
    assert alignment.word_of.index(4) != 4
    hidden = torch.randn(1, len(alignment.input_ids), 3)
    pooled = pool_subwords(hidden, torch.tensor([alignment.word_of]), len(words))
    sub = [i for i, w in enumerate(alignment.word_of) if w == 4]
    assert torch.allclose(pooled[0, 4], hidden[0, sub].mean(0))


def test_pretrained_embedder_returns_one_vector_per_word() -> None:
    embedder = PretrainedEmbedder("minilm", contextual=False)
    enc = encode_text("She has 12.5 unbelievably red apples.", ["12.5"])
    inputs = embedder.collate([embedder.prepare(enc.masked, enc.words)], len(enc.words))
    out = embedder(inputs)
    assert out.shape == (1, len(enc.words), embedder.dim)
    number_subtokens = _tokenizer("minilm")("12.5", add_special_tokens=False)["input_ids"]
    expected = embedder.embedding.weight[number_subtokens].mean(0)
    assert torch.allclose(out[0, enc.num_pos[0]], expected, atol=1e-6)


def test_tuning_only_used_rows_equals_tuning_the_whole_matrix() -> None:
    """Adam leaves rows without gradient where they are, so both ways reach the same weights."""
    torch.manual_seed(0)
    weight = torch.randn(50, 4)
    full = nn.Embedding.from_pretrained(weight.clone(), freeze=False)
    rows = TunedRows(weight)
    rows.tune_only([3, 7, 7, 11])
    batches = [torch.tensor([[3, 7], [11, 3]]), torch.tensor([[7, 7], [3, 0]])]
    optimizers = [torch.optim.Adam(m.parameters(), lr=0.1) for m in (full, rows)]
    for ids in batches:
        for module, opt in zip((full, rows), optimizers):
            opt.zero_grad()
            keep = ids != 0  # id 0 is untouched padding in both
            (module(ids)[keep] ** 2).sum().backward()
            opt.step()
    assert rows.tuned.shape == (3, 4)
    assert torch.allclose(rows.weight, full.weight, atol=1e-6)
    assert torch.equal(rows.weight[0], weight[0])  # a row never used stays pretrained
    assert torch.allclose(rows(torch.tensor([3, 0])), full(torch.tensor([3, 0])), atol=1e-6)


def test_tuned_rows_reload_from_a_state_dict() -> None:
    trained = TunedRows(torch.randn(20, 3))
    trained.tune_only([2, 5])
    with torch.no_grad():
        trained.tuned += 1.0
    fresh = TunedRows(torch.zeros(20, 3))
    fresh.load_state_dict(trained.state_dict())
    assert torch.equal(fresh(torch.tensor([2, 5, 9])), trained(torch.tensor([2, 5, 9])))


def test_reloading_tuned_rows_keeps_the_parameter_an_optimizer_holds() -> None:
    """A resumed run loads its state after building the optimizer: the tuned rows must go on training."""
    saved = TunedRows(torch.randn(20, 3))
    saved.tune_only([2, 5])
    rows = TunedRows(saved.frozen.clone())
    rows.tune_only([2, 5])
    optimizer = torch.optim.SGD(rows.parameters(), lr=1.0)
    rows.load_state_dict(saved.state_dict())
    optimizer.zero_grad()
    rows(torch.tensor([2])).sum().backward()
    optimizer.step()
    assert not torch.equal(rows.weight[2], saved.weight[2])
