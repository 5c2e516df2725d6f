"""The example pairs SVAMP types into Tables 6 and 26 to show the constrained model's word–equation shortcuts,
as data, with the outputs the paper reports (notebook 03_attention_analysis).

Each pair is a problem the paper's model solves and a small edit of it that it gets wrong. The texts are
typed in from the paper (`shared/papers/svamp_patel2021.txt`); the gold equations are ours (the paper gives
only the predicted ones), written with the text's numbers. The paper names the most attended word only
for the first pair ("every", §4.3); the table highlighting that marks the others is lost in our copy.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import expr
from ..numbers import map_equation
from ..problem import Problem
from ..text import extract_numbers


@dataclass(frozen=True)
class PaperExample:
    """One input row of SVAMP Table 6 or 26 with the paper's output for it."""

    id: str  # "t6-1a": table, pair number, a = solved original / b = edited variant
    text: str
    gold: str  # correct equation (infix over the text's numbers), ours
    paper_prediction: str  # the paper's predicted equation
    paper_answer: float
    paper_correct: bool
    paper_top_word: str | None = None  # the word the paper says gets the largest attention weight

    @property
    def pair(self) -> str:
        return self.id[:-1]

    def problem(self) -> Problem:
        """The example as a `Problem` (numbers found in the text, gold mapped onto their slots)."""
        numbers = extract_numbers(self.text)
        gold = expr.parse_infix(self.gold)
        prefix = tuple(expr.to_prefix(map_equation(gold, numbers)))
        return Problem(self.id, self.text, "", self.gold, float(expr.evaluate(gold)), numbers, prefix,
                       {"source": f"SVAMP paper Table {self.id[1:self.id.index('-')]}, {self.id}"})


def _pair(table: int, number: int, solved: tuple[str, str, str, float], edited: tuple[str, str, str, float],
          top_word: str | None = None) -> tuple[PaperExample, PaperExample]:
    return (PaperExample(f"t{table}-{number}a", *solved, paper_correct=True, paper_top_word=top_word),
            PaperExample(f"t{table}-{number}b", *edited, paper_correct=False, paper_top_word=top_word))


#: (text, our gold equation, the paper's predicted equation, the paper's answer) per row, in table order.
EXAMPLES: tuple[PaperExample, ...] = (
    *_pair(6, 1, ("John delivered 3 letters at every house. If he delivered for 8 houses, how many letters did "
                  "John deliver?", "3 * 8", "3 * 8", 24),
           ("John delivered 3 letters at every house. He delivered 24 letters in all. How many houses did John "
            "visit to deliver letters?", "24 / 3", "3 * 24", 72), top_word="every"),
    *_pair(6, 2, ("Sam made 8 dollars mowing lawns over the Summer. He charged 2 bucks for each lawn. How many "
                  "lawns did he mow?", "8 / 2", "8 / 2", 4),
           ("Sam mowed 4 lawns over the Summer. If he charged 2 bucks for each lawn, how much did he earn?",
            "4 * 2", "4 / 2", 2)),
    *_pair(6, 3, ("10 apples were in the box. 6 are red and the rest are green. how many green apples are in the "
                  "box?", "10 - 6", "10 - 6", 4),
           ("10 apples were in the box. Each apple is either red or green. 6 apples are red. how many green "
            "apples are in the box?", "10 - 6", "10 / 6", 1.67)),
    *_pair(26, 1, ("Mike had 8 games. After he gave some to his friend he had 5 left. How many games did he give "
                   "to his friend?", "8 - 5", "8 - 5", 3),
           ("After Mike gave some games to his friend he had 5 left. If he had 8 games initially, how many games "
            "did he give to his friend?", "8 - 5", "5 - 8", -3)),
    *_pair(26, 2, ("Jack bought 5 radios but only 2 of them worked. How many radios did not work?", "5 - 2",
                   "5 - 2", 3),
           ("Jack bought 5 radios but only 2 of them worked. How many more radios did not work than those that "
            "did?", "5 - 2 - 2", "5 - 2", 3)),
    *_pair(26, 3, ("Ross had 6 marbles. He sold 2 marbles to Joey. How many marbles does Ross have now?", "6 - 2",
                   "6 - 2", 4),
           ("Ross had 6 marbles. Joey sold 2 marbles to Ross. How many marbles does Ross have now?", "6 + 2",
            "6 - 2", 4)),
    *_pair(26, 4, ("Bob collected 7 cans. He lost 3 of them. How many cans does Bob have now?", "7 - 3", "7 - 3", 4),
           ("Bob had 7 cans. He collected 3 more. How many cans does Bob have now?", "7 + 3", "7 - 3", 4)),
    *_pair(26, 5, ("Joey had 9 pens. he used 4 of them. How many pens does he have now?", "9 - 4", "9 - 4", 5),
           ("Joey used 4 pens. If he had 9 pens intially, how many pens does he have now?", "9 - 4", "4 - 9", -5)),
    *_pair(26, 6, ("Jill read 30 pages in 10 days. How many pages did she read per day?", "30 / 10", "30 / 10", 3),
           ("Jill can read 3 pages per day. How many pages can she read in 10 days?", "3 * 10", "3 / 10", 0.33)),  # sic: 3 / 10 = 0.3
    *_pair(26, 7, ("Mary's hair was 15 inches long. After she did a haircut, it was 10 inches long . how much did "
                   "she cut off ?", "15 - 10", "15 - 10", 5),
           ("Mary cut off 5 inches of her hair. If her hair is now 10 inches long, how long was it earlier?",
            "5 + 10", "5 - 10", -5)),
)


def pairs() -> list[tuple[PaperExample, PaperExample]]:
    """The examples as (solved original, edited variant) pairs, in table order."""
    return [(EXAMPLES[i], EXAMPLES[i + 1]) for i in range(0, len(EXAMPLES), 2)]
