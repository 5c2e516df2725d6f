"""SVAMP's variations made by rule from its seeds (SVAMP §5.1.1, Table 8; Appendix C automated).

SVAMP's authors wrote every variation by hand, from a masked "script example" of each seed (Appendix C, Table 23),
and left generating them automatically "for future work". This module does the part that rules can do. Each rule
turns one seed (a one-operator problem in SVAMP's lowercase, tokenised form) into one variation labelled with
Table 8's code, or says why it does not apply:

- ``11`` Same Object, Different Structure: "how many more X ... than ..." becomes "how many X ... and ...", and
  "how many X ... altogether" over two quantities of X becomes "how many more X ... <bigger> than <smaller>";
- ``22`` Change Information: new numbers, the answer recomputed (the paper's example changes a name instead; new
  numbers are the change a rule can make without rereading the story);
- ``23`` Invert Operation: the question, answered, becomes a sentence of the body, and a given number becomes the
  unknown ("some"), asked for by a question made from its sentence;
- ``31`` Change order of Objects: "a X and b Y" becomes "b Y and a X";
- ``32`` Change order of Phrases: the last number sentence of the body moves to the front;
- ``33`` Add Irrelevant Information: a sentence with a number drawn from another seed of the same group is put
  first: one of the seed's own sentences with another person (the paper's example) where it names one, else a
  sentence of that other seed.

Every variation is checked as a dataset record is: its expression is mapped onto the numbers of its own text and
must use nothing else, and it must evaluate to a positive answer, whole where the seed's is. One that fails is
discarded and counted with the reason; a rule that does not fit a seed is counted as not applicable.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import pandas as pd

from .. import nlp
from ..expr import ExpressionError, Node, evaluate, parse_prefix, solve_for, to_infix, to_prefix
from ..numbers import constants, find_numbers, format_number, map_equation, unmask
from ..problem import Problem
from ..text import split_sentences
from .prediction_analysis import VARIATION_LABELS

#: Table 8's codes that rules make here (SVAMP's own labels: :data:`VARIATION_LABELS`).
RULE_CODES = ("11", "22", "23", "31", "32", "33")

_PRONOUNS = {"he", "she", "they", "it", "his", "her", "their", "its"}
_SUBJECTS = {"he", "she", "they", "it"}
_CONNECTIVES = {"then", "later", "after", "afterwards", "now", "next", "also", "so", "if", "but", "and", "the"}
_TOTAL_WORDS = (("in", "all"), ("in", "total"), ("altogether",), ("total",), ("combined",), ("together",))
_STOP = {".", ",", "?", "!", "and", "in", "on", "at", "to", "from", "for", "with", "each", "than", "of", "per",
         "if", "how"}
_DO = {"VBD": "did", "VBZ": "does", "VBP": "do"}
_BE = {"is", "are", "was", "were"}
#: Preposition + word pairs that are one phrase: "at first" is not "at <number> <object> first".
_FIXED_PHRASES = {("at", "first"), ("at", "last"), ("at", "least"), ("in", "all"), ("in", "total"), ("at", "once")}
_CLAUSE_ENDS = {"but", "and", "so", "because", "while", "if", "when", "then"}
_FUNCTION_WORDS = {"many", "much", "have", "does", "were", "what", "there", "they", "with", "that", "from", "this",
                   "will", "would", "each", "their", "them", "then", "when", "into", "some", "more", "left"}
_LEANING = {"more", "them", "it", "then", "next", "later", "now", "left", "still", "again", "other", "remaining",
            "rest", "another", "also"}


class NotApplicable(Exception):
    """The rule does not fit this seed (its text lacks the pattern the rule rewrites)."""


class Discarded(Exception):
    """The rule produced a problem that fails the record checks (numbers, positive or whole answer)."""


@dataclass(frozen=True)
class Variation:
    """One rule applied to one seed: the problem made, or why none was (`outcome`: generated, not applicable,
    discarded)."""

    seed: Problem
    code: str
    problem: Problem | None
    outcome: str
    reason: str = ""


# ----------------------------------------------------------------------------------------------- helpers

def _is_number(token: str) -> bool:
    found = find_numbers(token)
    return len(found) == 1 and found[0].text == token


def _number_count(tokens: Sequence[str]) -> int:
    return sum(_is_number(t) for t in tokens)


def _tags(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """(tag, lemma) of each token, tagged as one sentence by spaCy (whitespace kept as the seed tokenised it)."""
    from spacy.tokens import Doc

    pipeline = nlp.spacy_pipeline()
    doc = pipeline(Doc(pipeline.vocab, words=list(tokens)))
    return [(t.tag_, t.lemma_) for t in doc]


def _object_after(tokens: Sequence[str], tags: Sequence[tuple[str, str]], start: int) -> int:
    """End of the noun phrase that starts at `start` (after a number): adjectives and nouns ending in a noun, with an
    "of NOUN" tail ("bags of cans"); `start` itself when there is none."""
    end, last_noun = start, start
    while end < len(tokens) and end - start < 4 and tags[end][0] in ("JJ", "NN", "NNS", "NNP", "NNPS", "VBG"):
        end += 1
        if tags[end - 1][0].startswith("NN"):
            last_noun = end
    if last_noun < len(tokens) - 1 and tokens[last_noun] == "of" and tags[last_noun + 1][0].startswith("NN"):
        last_noun += 2
    return last_noun


def _seed_values(seed: Problem) -> Node:
    """The seed's expression over the values of its numbers."""
    return unmask(parse_prefix(list(seed.prefix)), seed.numbers)


def _whole(value: Fraction) -> bool:
    return value.denominator == 1


def make_problem(seed: Problem, code: str, body: Sequence[str], question: Sequence[str], values: Node,
                 rule: str) -> Problem:
    """A variation as a `Problem`: `values` (an expression over numbers) mapped onto its own text's numbers, checked
    (every leaf a number of the text, a positive answer, whole where the seed's is); :class:`Discarded` if not."""
    body_text, question_text = " ".join(body), " ".join(question)
    numbers = tuple(format_number(q.value) for q in find_numbers(f"{body_text} {question_text}"))
    slots = map_equation(values, numbers)
    if constants(slots):
        raise Discarded(f"its expression uses {constants(slots)}, not in its text")
    try:
        answer = evaluate(values)
    except ExpressionError as error:
        raise Discarded(f"its expression cannot be evaluated ({error})") from None
    if answer <= 0:
        raise Discarded(f"its answer {format_number(answer)} is not positive")
    if seed.answer is not None and float(seed.answer).is_integer() and not _whole(answer):
        raise Discarded(f"its answer {format_number(answer)} is not whole, the seed's is")
    return Problem(f"{seed.id}-v{code}", body_text, question_text, to_infix(values), float(answer), numbers,
                   tuple(to_prefix(slots)),
                   {"type": seed.meta.get("type", ""), "variation_codes": (code,), "seed": seed.id, "rule": rule,
                    "source": f"{seed.source}, variation {code} by rule ({rule})"})


# ------------------------------------------------------------------------------------------------- rules

def same_object_different_structure(seed: Problem, context: "Context") -> Problem:
    """11: a comparison question asks for the total instead, or a total over two objects or two sentences for their
    difference."""
    body, question = seed.body.split(), seed.question.split()
    values = _seed_values(seed)  # one operator over two numbers (`generate` checks)
    a, b = values.children
    if values.value == "-" and "than" in question and {"more", "fewer", "less"} & set(question):
        new = [t for t in question if t not in ("more", "fewer", "less")]
        new = ["and" if t == "than" else t for t in new]
        return make_problem(seed, "11", body, new, Node("+", (a, b)), "comparison asked as a total")
    if values.value == "+" and question[:2] == ["how", "many"]:
        try:
            return _compared_objects(seed, body, question)
        except NotApplicable:
            pass
    total = next((words for words in _TOTAL_WORDS if _find(question, words) >= 0), None)
    if values.value != "+" or total is None or question[:2] != ["how", "many"]:
        raise NotApplicable("the question neither compares with 'than' nor asks for a total over two sentences")
    tails = []
    for sentence in split_sentences(body):
        if _number_count(sentence) == 1:
            tags = _tags(sentence)
            p = next(i for i, t in enumerate(sentence) if _is_number(t))
            end = _object_after(sentence, tags, p + 1)
            tail = [t for t in sentence[end:] if t not in (".", "?", "!")]
            tails.append((find_numbers(sentence[p])[0].value, [tags[i][1] for i in range(p + 1, end)], tail))
    if len(tails) != 2 or tails[0][1] != tails[1][1] or not tails[0][2] or not tails[1][2] \
            or tails[0][2] == tails[1][2] or tails[0][0] == tails[1][0] or max(len(t[2]) for t in tails) > 5:
        raise NotApplicable("the total is not over two sentences that each hold one number of one object")
    at = _find(question, total)
    asked = question[:at] + question[at + len(total):]
    tails = [(value, obj, _beyond_question(tail, asked)) for value, obj, tail in tails]
    if not tails[0][2] or not tails[1][2] or tails[0][2] == tails[1][2]:
        raise NotApplicable("the two sentences differ only in what the question already says")
    big, small = sorted(tails, key=lambda t: t[0], reverse=True)
    new = asked[:2] + ["more"] + asked[2:-1] + big[2] + ["than"] + small[2] + ["?"]
    return make_problem(seed, "11", body, new, Node("-", (Node(format_number(big[0])), Node(format_number(small[0])))),
                        "total asked as a difference")


def _compared_objects(seed: Problem, body: list[str], question: list[str]) -> Problem:
    """"5 red peaches and 14 green peaches ... how many peaches ...?" → "how many more green peaches than red
    peaches ...?" (the question's object the same noun as both)."""
    tags, question_tags = _tags(body), _tags(question)
    i, j, k = _conjoined(body, tags)
    asked = _object_after(question, question_tags, 2)
    nouns = {tags[j - 1][1], tags[k - 1][1]}
    if asked == 2 or nouns != {question_tags[asked - 1][1]}:
        raise NotApplicable("the question's object is not the noun of both conjoined objects")
    (big, big_obj), (small, small_obj) = sorted([(find_numbers(body[i])[0].value, body[i + 1:j]),
                                                 (find_numbers(body[j + 1])[0].value, body[j + 2:k])], reverse=True)
    if big == small:
        raise NotApplicable("the two objects have the same number")
    new = question[:2] + ["more"] + big_obj + ["than"] + small_obj + question[asked:]
    return make_problem(seed, "11", body, new, Node("-", (Node(format_number(big)), Node(format_number(small)))),
                        "total asked as a difference of two objects")


def _beyond_question(tail: Sequence[str], question: Sequence[str]) -> list[str]:
    """`tail` without its longest opening run of words that the question already has ("went rowing in the morning"
    beside "how many campers went rowing ..." → "in the morning")."""
    cut = max((n for n in range(1, len(tail) + 1) if _find(question, tail[:n]) >= 0), default=0)
    return list(tail[cut:])


def _dependent(sentence: Sequence[str]) -> bool:
    """Whether a sentence leans on the one before it (a pronoun, "more", "then", ...), so it cannot be moved or
    lent to another problem."""
    return sentence[0] in _PRONOUNS | _CONNECTIVES - {"the"} or bool(set(sentence) & _LEANING)


def change_information(seed: Problem, context: "Context") -> Problem:
    """22: every number of the expression redrawn, from half its value to twice it (1 to 3 for a 1), until the
    answer is positive and whole where the seed's is; the text keeps its words."""
    text_numbers = [q for q in find_numbers(seed.body + " " + seed.question)]
    if any(not _whole(q.value) for q in text_numbers):
        raise NotApplicable("a number of the text is not whole")
    used = sorted({int(t[1:]) for t in seed.prefix if t.startswith("N")})
    draw = random.Random(f"{context.seed}-{seed.id}-22")
    for _ in range(500):
        new = {i: draw.randint(max(1, int(text_numbers[i].value) // 2), max(3, 2 * int(text_numbers[i].value)))
               for i in used}
        if all(new[i] == text_numbers[i].value for i in used):
            continue
        numbers = [str(new.get(i, q.text)) for i, q in enumerate(text_numbers)]
        values = unmask(parse_prefix(list(seed.prefix)), numbers)
        try:
            answer = evaluate(values)
        except ExpressionError:
            continue
        if answer > 0 and (_whole(answer) or not float(seed.answer or 0).is_integer()):
            body, question = _renumber(seed.body, seed.question, {i: str(new[i]) for i in used})
            return make_problem(seed, "22", body.split(), question.split(), values, "numbers redrawn")
    raise Discarded("no draw of new numbers gave a positive whole answer")


def _renumber(body: str, question: str, new: Mapping[int, str]) -> tuple[str, str]:
    """`body` and `question` with their i-th numbers (counted over both) replaced by `new[i]`."""
    out, offset = [], 0
    for part in (body, question):
        quantities = find_numbers(part)
        for k, quantity in reversed(list(enumerate(quantities))):
            if offset + k in new:
                part = part[:quantity.start] + new[offset + k] + part[quantity.end:]
        out.append(part)
        offset += len(quantities)
    return out[0], out[1]


def _find(tokens: Sequence[str], words: Sequence[str]) -> int:
    """Index of the first occurrence of the run `words` in `tokens`, or -1."""
    return next((i for i in range(len(tokens) - len(words) + 1) if list(tokens[i:i + len(words)]) == list(words)), -1)


def _answered(question: Sequence[str], answer: str) -> list[str]:
    """A "how many X ...?" question turned into the sentence that answers it with `answer`."""
    if question[:2] != ["how", "many"] or question[-1] != "?":
        raise NotApplicable("the question does not ask 'how many'")
    tags = _tags(question)
    verb = next((i for i in range(2, len(question)) if tags[i][0].startswith("VB") or tags[i][0] == "MD"), None)
    if verb is None or verb == 2:
        raise NotApplicable("the question names no object before its verb")
    obj, rest = list(question[2:verb]), list(question[verb + 1:-1])
    aux = question[verb]
    if aux in ("do", "does", "did"):
        main = next((i for i in range(len(rest)) if tags[verb + 1 + i][0] == "VB"), None)
        if not main:
            raise NotApplicable("the question's subject or verb was not found")
        subject, head, tail = rest[:main], rest[main], rest[main + 1:]
        tail_tags = tags[verb + 2 + main:-1]
        if (tail and tail_tags[0][0] == "IN" and (len(tail) == 1 or tail_tags[1][0] in ("RB", "IN"))
                and tuple(tail[:2]) not in _FIXED_PHRASES):
            return subject + [aux, head, tail[0], answer] + obj + tail[1:] + ["."]  # "play with 19 kids altogether"
        return subject + [aux, head, answer] + obj + tail + ["."]
    if aux in _BE:
        if rest[:1] == ["there"]:
            return ["there", aux, answer] + obj + rest[1:] + ["."]
        return [answer] + obj + [aux] + rest + ["."]
    if tags[verb][0] in ("VBD", "VBZ", "VBP"):  # "how many campers went rowing in all ?"
        return [answer] + obj + [aux] + rest + ["."]
    raise NotApplicable("the question's verb is not one a rule can answer")


def _asked(sentence: Sequence[str], position: int) -> tuple[list[str], list[str]]:
    """The sentence with its number at `position` made "some", and the "how many" question that asks for it."""
    tags = _tags(sentence)
    end = _object_after(sentence, tags, position + 1)
    if end == position + 1:
        raise NotApplicable("the number has no object noun after it")
    after = []
    for token in sentence[end:]:  # up to the end of its clause: "... in the pond but stray cats ..." stops at "but"
        if token in (".", "!", "?", ",") or token in _CLAUSE_ENDS:
            break
        after.append(token)
    obj = list(sentence[position + 1:end])
    hidden = list(sentence[:position]) + ["some"] + list(sentence[position + 1:])
    if sentence[0] == "there" and sentence[1] in _BE:
        return hidden, ["how", "many"] + obj + [sentence[1], "there"] + list(sentence[2:position]) + after + ["?"]
    if position == 0:
        return hidden, ["how", "many"] + obj + after + ["?"]
    verb = next((i for i in range(position) if tags[i][0] in _DO), None)
    if verb is not None and tags[verb][1] == "be":
        raise NotApplicable("the number's verb is a form of 'be', which 'did' cannot ask about")
    subject = list(sentence[:verb]) if verb else []
    if not subject or any(t in _CONNECTIVES or _is_number(t) for t in subject) \
            or any(not tags[i][0].startswith(("NN", "PRP", "DT", "POS")) for i in range(verb)):
        raise NotApplicable("the number's sentence has no plain subject before its verb")
    if tags[verb][1] == "have" and not after:  # "randy has 78 blocks": asked after the story, "at first"
        return hidden, ["how", "many"] + obj + ["did"] + subject + ["have"] + list(sentence[verb + 1:position]) + [
            "at", "first", "?"]
    return hidden, (["how", "many"] + obj + [_DO[tags[verb][0]]] + subject + [tags[verb][1]]
                    + list(sentence[verb + 1:position]) + after + ["?"])


def invert_operation(seed: Problem, context: "Context") -> Problem:
    """23: the answer is given (the question answered, as a sentence) and a given number is asked for."""
    values = _seed_values(seed)
    answer = evaluate(values)
    statement = _answered(seed.question.split(), format_number(answer))
    sentences = split_sentences(seed.body.split())
    why = "no number of the expression sits in a sentence a rule can ask about"
    for leaf in (child for child in values.children if child.is_leaf):  # a fraction's subtree is no text number
        for k, sentence in enumerate(sentences):
            hits = [i for i, t in enumerate(sentence) if _is_number(t) and find_numbers(t)[0].value
                    == Fraction(leaf.value)]
            if len(hits) != 1:
                continue
            try:
                hidden, question = _asked(sentence, hits[0])
            except NotApplicable as reason:
                why = str(reason)
                continue
            if _number_count(question) or question == seed.question.split():
                why = "the question for the number would hold another number or be the seed's own"
                continue
            body = [t for s in sentences[:k] for t in s] + hidden + [t for s in sentences[k + 1:] for t in s]
            unknown = _replace_leaf(values, leaf, Node("x"))
            expression = solve_for(Node(format_number(answer)), unknown, "x")
            return make_problem(seed, "23", body + statement, question, expression, "answer given, a number asked")
    raise NotApplicable(why)


def _replace_leaf(node: Node, leaf: Node, by: Node) -> Node:
    """`node` with the one child `leaf` (by identity) replaced by `by`."""
    if node is leaf:
        return by
    if node.is_leaf:
        return node
    return Node(node.value, tuple(_replace_leaf(child, leaf, by) for child in node.children))


def change_order_of_objects(seed: Problem, context: "Context") -> Problem:
    """31: "a X and b Y" → "b Y and a X" (X and Y noun phrases)."""
    tokens = seed.body.split()
    i, j, k = _conjoined(tokens, _tags(tokens))
    swapped = tokens[:i] + tokens[j + 1:k] + ["and"] + tokens[i:j] + tokens[k:]
    return make_problem(seed, "31", swapped, seed.question.split(), _seed_values(seed), "conjoined objects swapped")


def _conjoined(tokens: Sequence[str], tags: Sequence[tuple[str, str]]) -> tuple[int, int, int]:
    """The first "a X and b Y" of `tokens` (X, Y noun phrases ending the conjunction) as the indices of a, "and",
    and the token after Y."""
    for i, token in enumerate(tokens):
        if not _is_number(token):
            continue
        j = _object_after(tokens, tags, i + 1)
        if j == i + 1 or j + 1 >= len(tokens) or tokens[j] != "and" or not _is_number(tokens[j + 1]):
            continue
        k = _object_after(tokens, tags, j + 2)
        # "... 139 cookies this morning": the phrase goes on, so these are not two plain objects
        if k > j + 2 and (k == len(tokens) or tokens[k] in _STOP or tags[k][0].startswith("VB")):
            return i, j, k
    raise NotApplicable("no 'a X and b Y' in the body")


def change_order_of_phrases(seed: Problem, context: "Context") -> Problem:
    """32: the body's last sentence holding a number moves to the front; if it opens with a pronoun and the old first
    sentence with a person's name, the two swap their first words."""
    sentences = split_sentences(seed.body.split())
    numbered = [k for k, s in enumerate(sentences) if _number_count(s)]
    if len(numbered) < 2:
        raise NotApplicable("the body has fewer than two sentences with numbers")
    if set(seed.question.split()) & {"then", "now", "left", "still"}:
        raise NotApplicable("the question asks about a moment of the story, so its order matters")
    moved = sentences[numbered[-1]]
    if _dependent(moved[1:]) or moved[0] in _CONNECTIVES - {"the"}:
        raise NotApplicable("the last number sentence leans on the one before it")
    rest = sentences[:numbered[-1]] + sentences[numbered[-1] + 1:]
    if moved[0] in _PRONOUNS - _SUBJECTS:
        raise NotApplicable(f"the moved sentence opens with the possessive {moved[0]!r}")
    if moved[0] in _SUBJECTS:
        names = context.names.get(seed.id, ())
        if rest[0][0] not in names:
            raise NotApplicable("the moved sentence opens with a pronoun whose person is named later")
        moved, rest[0] = [rest[0][0]] + moved[1:], [moved[0]] + rest[0][1:]
    body = [t for s in [moved] + rest for t in s]
    return make_problem(seed, "32", body, seed.question.split(), _seed_values(seed), "last number sentence first")


def add_irrelevant_information(seed: Problem, context: "Context") -> Problem:
    """33: a distractor sentence first, with a number drawn from another seed of the same group: one of the seed's
    own sentences with another person, where the question names the person whose sentence it is (so the new person's
    amount cannot count), else a sentence of another seed that shares no content word with the question (so it is
    about something else)."""
    draw = random.Random(f"{context.seed}-{seed.id}-33")
    others = [p for p in context.seeds if p.meta.get("type") == seed.meta.get("type") and p.id != seed.id]
    own = {Fraction(format_number(find_numbers(n)[0].value)) for n in seed.numbers}
    numbers = sorted({q.value for p in others for q in find_numbers(p.body)} - own)
    names = set(context.names.get(seed.id, ()))
    other_names = sorted({n for p in others for n in context.names.get(p.id, ())} - names)
    body, question = seed.body.split(), seed.question.split()
    for sentence in split_sentences(body):
        named = {t for t in sentence if t in names}
        if (_number_count(sentence) == 1 and len(named) == 1 and named <= set(question) and not _dependent(sentence)
                and other_names and numbers):
            name, number = draw.choice(other_names), format_number(draw.choice(numbers))
            distractor = [name if t in names else (number if _is_number(t) else t) for t in sentence]
            return make_problem(seed, "33", distractor + body, question, _seed_values(seed),
                                "own sentence, another person")
    asked = _content(question)
    candidates = [s for p in others for s in split_sentences(p.body.split())
                  if _number_count(s) == 1 and not _dependent(s) and not _content(s) & asked
                  and all(find_numbers(t)[0].value not in own for t in s if _is_number(t))]
    if not candidates:
        raise NotApplicable("no sentence of another seed of its group is about something else")
    return make_problem(seed, "33", draw.choice(candidates) + body, question, _seed_values(seed),
                        "another seed's sentence")


def _content(tokens: Sequence[str]) -> set[str]:
    """The content words of `tokens` (and "$", which money questions share): what a distractor must not mention."""
    money = {"$", "money", "dollar", "dollars", "cents"}
    return {"$" if t in money else t for t in tokens if (t.isalpha() and len(t) > 3 and t not in _FUNCTION_WORDS)
            or t in money}


RULES: dict[str, Callable[[Problem, "Context"], Problem]] = {
    "11": same_object_different_structure, "22": change_information, "23": invert_operation,
    "31": change_order_of_objects, "32": change_order_of_phrases, "33": add_irrelevant_information}


# ------------------------------------------------------------------------------------------- generating

@dataclass(frozen=True)
class Context:
    """What a rule may draw on besides its seed: every seed (33 takes sentences and numbers from the same group),
    each seed's person names (lowercase), and the random seed."""

    seeds: tuple[Problem, ...]
    names: Mapping[str, tuple[str, ...]]
    seed: int = 0


def person_names(seeds: Sequence[Problem], cased: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Each seed's one-word person names in its cased text (`cased`: seed id → the ASDiv-A text it joins to; SVAMP's
    lowercase file hides names from NER), lowercased as SVAMP writes them: spaCy's PERSON entities, and one-word
    entities of another label that are a proper noun and a sentence's subject (the small model calls "Julia" an ORG)."""
    pipeline = nlp.spacy_pipeline(disable=())
    out = {}
    for seed in seeds:
        text = cased.get(seed.id)
        entities = [] if text is None else pipeline(text).ents
        names = dict.fromkeys(e.text.lower() for e in entities if len(e) == 1 and (
            e.label_ == "PERSON" or (e.label_ in ("ORG", "GPE", "NORP") and e.root.dep_ == "nsubj"
                                     and e.root.pos_ == "PROPN")))
        out[seed.id] = tuple(n for n in names if n in seed.text.split())
    return out


def _one_operator(problem: Problem) -> bool:
    """Whether the seed is what SVAMP's seeds are: one operator over two numbers of its text."""
    return (len(problem.prefix) == 3 and problem.prefix[0] in "+-*/"
            and all(t.startswith("N") and t[1:].isdigit() and int(t[1:]) < len(problem.numbers)
                    for t in problem.prefix[1:]))


def generate(seeds: Sequence[Problem], names: Mapping[str, tuple[str, ...]], seed: int = 0,
             codes: Sequence[str] = RULE_CODES) -> list[Variation]:
    """Every rule of `codes` applied to every seed, in seed order; deterministic for a given `seed`."""
    context = Context(tuple(seeds), names, seed)
    out = []
    for problem in seeds:
        for code in codes:
            if not _one_operator(problem):
                out.append(Variation(problem, code, None, "not applicable",
                                     f"{problem.source}: not a one-operator problem over its numbers"))
                continue
            try:
                out.append(Variation(problem, code, RULES[code](problem, context), "generated"))
            except NotApplicable as reason:
                out.append(Variation(problem, code, None, "not applicable", str(reason)))
            except Discarded as reason:
                out.append(Variation(problem, code, None, "discarded", str(reason)))
    return out


def problems(variations: Sequence[Variation]) -> list[Problem]:
    """The generated problems, once each (two rules can make the same text: the first is kept)."""
    seen: set[str] = set()
    out = []
    for variation in variations:
        if variation.problem is not None and variation.problem.text not in seen:
            seen.add(variation.problem.text)
            out.append(variation.problem)
    return out


def counts(variations: Sequence[Variation]) -> pd.DataFrame:
    """Per variation type: seeds tried, generated, not applicable, discarded (with the commonest reason)."""
    rows = []
    for code in dict.fromkeys(v.code for v in variations):
        mine = [v for v in variations if v.code == code]
        reasons = pd.Series([v.reason for v in mine if v.outcome != "generated"], dtype=object)
        rows.append({"code": code, "variation": VARIATION_LABELS[code], "seeds": len(mine),
                     "generated": sum(v.outcome == "generated" for v in mine),
                     "not applicable": sum(v.outcome == "not applicable" for v in mine),
                     "discarded": sum(v.outcome == "discarded" for v in mine),
                     "commonest reason for none": reasons.value_counts().index[0] if len(reasons) else ""})
    return pd.DataFrame(rows)


def script_example(text: str) -> str:
    """Appendix C's preprocessing script (Table 23): persons (spaCy NER) masked as [NAMEk] and numbers as [NUMk],
    numbered in order of first appearance."""
    pipeline = nlp.spacy_pipeline(disable=())
    doc = pipeline(text)
    spans: list[tuple[int, int, str]] = [(e.start_char, e.end_char, "NAME") for e in doc.ents if e.label_ == "PERSON"]
    spans += [(q.start, q.end, "NUM") for q in find_numbers(text)
              if not any(s <= q.start < e for s, e, _ in spans)]
    index: dict[tuple[str, str], int] = {}
    out, last = [], 0
    for start, end, tag in sorted(spans):
        key = (tag, text[start:end].lower())
        index.setdefault(key, 1 + sum(t == tag for t, _ in index))
        out += [text[last:start], f"[{tag}{index[key]}]"]
        last = end
    return "".join(out + [text[last:]])


def of_seed(variations: Sequence[Variation], seed_id: str) -> pd.DataFrame:
    """Every rule's outcome on one seed: the variation made, or why none was (the lesson of notebook 04)."""
    return pd.DataFrame([{"code": v.code, "variation": VARIATION_LABELS[v.code], "outcome": v.outcome,
                          "text": v.problem.text if v.problem else v.reason,
                          "expression": v.problem.equation if v.problem else "",
                          "answer": v.problem.answer if v.problem else None}
                         for v in variations if v.seed.id == seed_id])


def sample(variations: Sequence[Variation], per_code: int = 2) -> pd.DataFrame:
    """The first `per_code` generated problems of each type, beside their seeds (for the reader to judge)."""
    rows = []
    for code in dict.fromkeys(v.code for v in variations):
        for v in [v for v in variations if v.code == code and v.problem is not None][:per_code]:
            rows.append({"code": code, "seed": v.seed.text, "variation": v.problem.text,  # type: ignore[union-attr]
                         "expression": v.problem.equation, "answer": v.problem.answer})  # type: ignore[union-attr]
    return pd.DataFrame(rows)

