"""GTS's goal-driven tree decoder (Xie & Sun 2019), shared by GTS and Graph2Tree.

Each node of the prefix tree has a goal vector q. The root goal comes from the encoder; an operator node
spawns left/right child goals from (q, context, operator embedding); a right child's goal also sees the
embedding of its finished left sibling subtree; subtree embeddings merge (operator, left, right) bottom-up.
Outputs are operators (scored from q and its attention context) and leaves — constants (learned vectors)
and the problem's numbers (encoder states) — scored against the goal.

Speed: with teacher forcing the tree is known, and subtree embeddings never depend on goals. So training
computes all subtree embeddings level by level (by height), then all goals level by level (by depth), each
level batched over every node of every problem — a handful of batched steps instead of the reference
implementations' per-token, per-problem Python loops. Inference (beam search) keeps per-row stacks.
Used by notebook 01_baselines.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from ..text import OutputVocab
from .attention import Attention
from .base import Batch, Encoded, slot_mask
from .dropout import Dropout


class _Gate(nn.Module):
    """tanh(W x) ⊙ σ(W' x): the gated layer GTS uses for goals and merges."""

    def __init__(self, in_dim: int, out_dim: int) -> None:
        super().__init__()
        self.value = nn.Linear(in_dim, out_dim)
        self.gate = nn.Linear(in_dim, out_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.value(x)) * torch.sigmoid(self.gate(x))


@dataclass(frozen=True)
class _Trees:
    """Structure of a batch of gold prefix trees, flattened over all nodes of all problems."""

    problem: torch.Tensor  # (G,) problem index of each node
    token: torch.Tensor  # (G,) target output id
    left: torch.Tensor  # (G,) left child (-1 for leaves)
    right: torch.Tensor  # (G,) right child (-1 for leaves)
    sibling: torch.Tensor  # (G,) left sibling for right children, else -1
    depth: torch.Tensor  # (G,)
    height: torch.Tensor  # (G,) 0 for leaves


def _tree_structure(targets: list[tuple[int, ...]], n_ops: int) -> _Trees:
    problem, token, left, right, sibling, depth = [], [], [], [], [], []
    for b, target in enumerate(targets):
        offset = len(token)
        stack: list[int] = []  # open operator nodes (global index)
        for i, t in enumerate(target):
            g = offset + i
            problem.append(b)
            token.append(t)
            left.append(-1)
            right.append(-1)
            sibling.append(-1)
            depth.append(0)
            if stack:
                parent = stack[-1]
                depth[g] = depth[parent] + 1
                if left[parent] < 0:
                    left[parent] = g
                else:
                    right[parent] = g
                    sibling[g] = left[parent]
                    stack.pop()
            if t < n_ops:
                stack.append(g)
    height = [0] * len(token)
    for g in reversed(range(len(token))):  # children come after their parent in prefix order
        if left[g] >= 0:
            height[g] = 1 + max(height[left[g]], height[right[g]])
    as_tensor = lambda xs: torch.tensor(xs, dtype=torch.long)  # noqa: E731
    return _Trees(*map(as_tensor, (problem, token, left, right, sibling, depth, height)))


class TreeDecoder(nn.Module):
    def __init__(self, out_vocab: OutputVocab, hidden: int, op_dim: int, dropout: float) -> None:
        super().__init__()
        self.out_vocab = out_vocab
        self.hidden = hidden
        self.n_ops = out_vocab.n_ops
        self.constants = nn.Parameter(torch.randn(len(out_vocab.constants), hidden) * 0.1)
        self.op_embedding = nn.Embedding(out_vocab.n_ops, op_dim)
        self.dropout = Dropout(dropout)
        self.goal_left = _Gate(hidden, hidden)  # root and left children
        self.goal_right = _Gate(2 * hidden, hidden)  # right children: [left sibling subtree; parent's goal]
        self.attention = Attention(hidden, hidden, "concat")
        self.op_score = nn.Linear(2 * hidden, out_vocab.n_ops)
        self.leaf_query = nn.Linear(2 * hidden, hidden)
        self.leaf_key = nn.Linear(hidden, hidden, bias=False)
        self.leaf_score = nn.Linear(hidden, 1, bias=False)
        self.child_left = _Gate(2 * hidden + op_dim, hidden)
        self.child_right = _Gate(2 * hidden + op_dim, hidden)
        self.merge = _Gate(op_dim + 2 * hidden, hidden)

    # -------------------------------------------------------------------------------- shared pieces
    def _candidates(self, enc: Encoded) -> torch.Tensor:
        """(B, C + S, H) leaf candidates: constants then the problem's numbers, zero-padded/cut to the S slots
        of the output vocabulary (a test problem's numbers beyond S cannot be predicted)."""
        consts = self.constants[None].expand(enc.numbers.shape[0], -1, -1)
        numbers = F.pad(enc.numbers[:, :self.out_vocab.max_slots],
                        (0, 0, 0, max(0, self.out_vocab.max_slots - enc.numbers.shape[1])))
        return torch.cat([consts, numbers], 1)

    def _goal(self, base: torch.Tensor, sibling: torch.Tensor | None) -> torch.Tensor:
        if sibling is None:
            return self.goal_left(self.dropout(base))
        return self.goal_right(self.dropout(torch.cat([sibling, base], -1)))

    def _scores(self, goal: torch.Tensor, context: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        """Operator + leaf scores in output-vocabulary order; `keys` = leaf_key(candidates) per node."""
        qc = self.dropout(torch.cat([goal, context], -1))
        leaf = self.leaf_score(torch.tanh(self.leaf_query(qc)[:, None, :] + keys)).squeeze(-1)
        return torch.cat([self.op_score(qc), leaf], -1)

    def _children(self, goal: torch.Tensor, context: torch.Tensor, op: torch.Tensor
                  ) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.dropout(torch.cat([goal, context, self.op_embedding(op)], -1))
        return self.child_left(x), self.child_right(x)

    def _merge(self, op: torch.Tensor, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
        return self.merge(self.dropout(torch.cat([self.op_embedding(op), left, right], -1)))

    # -------------------------------------------------------------------------------- training
    def loss(self, batch: Batch, enc: Encoded) -> torch.Tensor:
        """Mean cross-entropy over all gold tree nodes (teacher forcing, level-batched)."""
        trees = _tree_structure(batch.targets, self.n_ops)
        device = enc.outputs.device
        problem, token = trees.problem.to(device), trees.token.to(device)
        n_nodes, hidden = len(token), self.hidden
        candidates = self._candidates(enc)
        leaf_id = (token - self.n_ops).clamp(min=0)
        subtree = candidates[problem, leaf_id.clamp(max=candidates.shape[1] - 1)]  # leaves; ops filled below
        # The tree structure stays on the CPU (no device syncs for control flow); its indices go to the device.
        for h in range(1, int(trees.height.max()) + 1):
            at = (trees.height == h).nonzero().squeeze(1)
            nodes = at.to(device)
            merged = self._merge(token[nodes], subtree[trees.left[at].to(device)], subtree[trees.right[at].to(device)])
            subtree = subtree.index_copy(0, nodes, merged)
        base = enc.outputs.new_zeros(n_nodes, hidden)
        roots = (trees.depth == 0).nonzero().squeeze(1).to(device)
        base = base.index_copy(0, roots, enc.root[problem[roots]])
        keys = self.leaf_key(candidates)
        projected = self.attention.project(enc.outputs)  # once per problem, not once per node
        usable = slot_mask(self.out_vocab, batch.n_numbers)
        logits = enc.outputs.new_zeros(n_nodes, len(self.out_vocab))
        for d in range(int(trees.depth.max()) + 1):
            at_depth = trees.depth == d
            for is_right in (False, True):
                select = at_depth & ((trees.sibling >= 0) == is_right)
                if not bool(select.any()):
                    continue
                at = select.nonzero().squeeze(1)
                nodes = at.to(device)
                rows = problem[nodes]
                take = lambda t: t.index_select(0, rows)  # noqa: E731
                goal = self._goal(base.index_select(0, nodes),
                                  subtree.index_select(0, trees.sibling[at].to(device)) if is_right else None)
                context, _ = self.attention(goal, take(enc.outputs), take(enc.mask), take(projected))
                scores = self._scores(goal, context, take(keys))
                logits = logits.index_copy(0, nodes, scores.masked_fill(~usable[rows], -1e9))
                ops = (trees.token[at] < self.n_ops).nonzero().squeeze(1)
                if len(ops):
                    parents, ops = at[ops], ops.to(device)
                    left, right = self._children(goal[ops], context[ops], token[nodes[ops]])
                    base = base.index_copy(0, trees.left[parents].to(device), left)
                    base = base.index_copy(0, trees.right[parents].to(device), right)
        return F.cross_entropy(logits, token)

    # -------------------------------------------------------------------------------- inference
    def start(self, enc: Encoded, beam: int) -> dict[str, Any]:
        """Beam-search state: per row a stack of pending goals (base, is_right) and of subtrees."""
        rows = lambda t: t.repeat_interleave(beam, 0)  # noqa: E731
        candidates = rows(self._candidates(enc))
        outputs = rows(enc.outputs)
        return {"outputs": outputs, "mask": rows(enc.mask), "candidates": candidates,
                "keys": self.leaf_key(candidates), "projected": self.attention.project(outputs),
                "goals": [[(root, False)] for root in rows(enc.root)], "subtrees": [[] for _ in range(len(candidates))]}

    def step(self, state: dict[str, Any]) -> tuple[torch.Tensor, None]:
        n_rows = len(state["goals"])
        active = [r for r in range(n_rows) if state["goals"][r]]
        goal = state["outputs"].new_zeros(n_rows, self.hidden)
        for is_right in (False, True):
            rows = [r for r in active if state["goals"][r][-1][1] == is_right]
            if rows:
                base = torch.stack([state["goals"][r][-1][0] for r in rows])
                sibling = torch.stack([state["subtrees"][r][-1] for r in rows]) if is_right else None
                goal[rows] = self._goal(base, sibling)
        context, _ = self.attention(goal, state["outputs"], state["mask"], state["projected"])
        state["goal"], state["context"] = goal, context
        return torch.log_softmax(self._scores(goal, context, state["keys"]), -1), None

    def advance(self, state: dict[str, Any], parents: torch.Tensor, tokens: torch.Tensor,
                done: torch.Tensor) -> dict[str, Any]:
        parents_list, token_list, done_list = parents.tolist(), tokens.tolist(), done.tolist()
        goal, context = state["goal"][parents], state["context"][parents]
        goals = [list(state["goals"][p]) for p in parents_list]
        subtrees = [list(state["subtrees"][p]) for p in parents_list]
        ops = [r for r, (t, d) in enumerate(zip(token_list, done_list)) if not d and t < self.n_ops]
        if ops:
            left, right = self._children(goal[ops], context[ops], tokens[ops])
        for i, r in enumerate(ops):
            goals[r].pop()
            goals[r] += [(right[i], True), (left[i], False)]
            subtrees[r].append(tokens[r])  # operator marker (a 0-d tensor), merged when both children exist
        for r, (t, d) in enumerate(zip(token_list, done_list)):
            if d or t < self.n_ops:
                continue
            goals[r].pop()
            current = state["candidates"][r, t - self.n_ops]
            while len(subtrees[r]) >= 2 and subtrees[r][-1].dim() == 1:  # finished left sibling below
                left_tree, op = subtrees[r].pop(), subtrees[r].pop()
                current = self._merge(op[None], left_tree[None], current[None])[0]
            subtrees[r].append(current)
        return {**state, "goals": goals, "subtrees": subtrees}
