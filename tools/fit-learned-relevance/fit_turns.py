"""Fits LearnedTurnRelevance's weights: the score of every turn a context could hold, however it came.

    cv FILE        leave one conversation out: fit on the others, pack the held-out one's turns, print proxies
    ship FILE      fit on every conversation (the product's weights) and without each in turn (the eval's folds)

FILE is what `./engram eval locomo --features FILE` wrote. The hits of each question are ranked as the product's
learned ranking ranks them, by the hit weights fitted without its conversation (fit.py ship writes them first), cut
to a context's 50 candidates and to those the relevance floor keeps; each turn they bring — a turn hit, a turn around
one, a window's turn — gets the features LearnedTurnRelevance computes in Java (ported below, names and order in
the Java class). A turn is positive when it is an evidence turn of its question.
"""
import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from fit import BUDGETS, C, ship

PRODUCT = Path("shared-model/src/main/resources/io/engram/model/retrieval/learned-turn-relevance.tsv")
FOLDS = Path("launcher/src/main/resources/io/engram/launcher/learned-turn-relevance")
HIT_FOLDS = Path("launcher/src/main/resources/io/engram/launcher/learned-relevance")
FEATURES = ["bias", "hit", "hit_probability", "hit_rank", "window", "window_probability", "window_focus",
            "neighbour_1", "neighbour_2", "neighbour_only", "query_words", "speaker_named", "tokens", "windows"]
CANDIDATES = 50          # ContextOptions.DEFAULT.candidates()
FLOOR = 0.9              # ContextOptions.DEFAULT.floor()
TOKENS_EXPONENT = 0.7    # LearnedTurnRelevance
STOP_WORDS = set("what when where which whom whose does did have has that this with from they their them about "
                 "would could should there were been into some many much kind like your other".split())


def content_words(text):  # WindowTurnFocus.contentWords
    return {w[:5] for w in re.findall(r"[^\W_]+", text.lower()) if len(w) >= 4 and w not in STOP_WORDS}


def named(query):  # SpeakerMatch.named
    return {m.lower() for m in re.findall(r"\b([A-Z][A-Za-z\-]*)", query)}


def speaker(text):  # SpeakerMatch.speaker
    m = re.match(r"^\s*([A-Z][A-Za-z\-]{0,40}):", text)
    return m.group(1).lower() if m else None


def hit_weights(conversation):
    lines = [l.rstrip("\n").split("\t") for l in open(HIT_FOLDS / f"without-{conversation}.tsv") if not l.startswith("#")]
    return np.array([float(w) for _, w in lines])


def sigmoid(z):
    return 1 / (1 + math.exp(-z))


def turns_of(q, w):
    """Every turn the question's related hits bring, with its features (LearnedTurns, LearnedTurnRelevance)."""
    names = q["features"]
    scored = []
    for c in q["candidates"]:
        p = sigmoid(float(np.dot(w, c["features"])))
        scored.append((p / max(1, c["tokens"]), p, c))
    scored.sort(key=lambda s: -s[0])
    hits = scored[:CANDIDATES]
    best_cosine = max((c["features"][names.index("cosine")] for _, _, c in hits), default=0)
    hits = [h for h in hits if h[2]["features"][names.index("lexical")] > 0
            or h[2]["features"][names.index("cosine")] >= FLOOR * max(0, best_cosine)]
    table = q["turns"]
    turns = {}

    def of(dia):
        if dia not in turns:
            turns[dia] = dict(id=dia, hit_p=0.0, hit_rank=0, hit_score=0.0, window_p=0.0, focus=False, windows=0, n1=0.0, n2=0.0)
        return turns[dia]

    hit_positions = defaultdict(dict)
    for rank, (score, p, c) in enumerate(hits, start=1):
        if c["window"]:
            continue
        dia = c["turns"][0]
        t = of(dia)
        t["hit_p"] = max(t["hit_p"], p)
        t["hit_score"] = max(t["hit_score"], score)
        t["hit_rank"] = t["hit_rank"] or rank
        if dia in table:
            row = table[dia]
            hit_positions[row["session"]][row["position"]] = max(p, hit_positions[row["session"]].get(row["position"], 0))
    wanted = content_words(q["question"])
    for score, p, c in hits:
        if not c["window"]:
            continue
        held = [d for d in c["turns"] if d in table]
        own = [turns[d]["hit_score"] if d in turns else 0 for d in held]
        matched = [len(content_words(table[d]["text"]) & wanted) for d in held]
        order = sorted(range(len(held)), key=lambda i: (-own[i], -matched[i], i))  # WindowTurnFocus
        for r, i in enumerate(order):
            t = of(held[i])
            t["windows"] += 1
            t["window_p"] = max(t["window_p"], p)
            t["focus"] |= r < 2
    for dia in table:
        of(dia)
    people = named(q["question"])
    rows = []
    for dia, t in turns.items():
        row = table.get(dia)
        if row is None:
            continue
        around = hit_positions.get(row["session"], {})
        pos = row["position"]
        n1 = max(around.get(pos - 1, 0), around.get(pos + 1, 0))
        n2 = max(around.get(pos - 2, 0), around.get(pos + 2, 0))
        hit = t["hit_rank"] > 0
        f = [1, 1 if hit else 0, t["hit_p"], 1 / (1 + math.log(t["hit_rank"])) if hit else 0,
             1 if t["windows"] else 0, t["window_p"], 1 if t["focus"] else 0, n1, n2, 1 if n1 > 0 and not hit else 0,
             len(content_words(row["text"]) & wanted) / len(wanted) if wanted else 0,
             1 if speaker(row["text"]) in people else 0, math.log1p(row["tokens"]) / math.log(257),
             min(t["windows"], 3) / 3]
        rows.append((dia, row["tokens"], f))
    return rows


def dataset(questions):
    weights = {}
    out = []
    for q in questions:
        conv = q["conversation"]
        if conv not in weights:
            weights[conv] = hit_weights(conv)
        out.append((q, turns_of(q, weights[conv])))
    return out


def fit(items):
    x = np.array([f for q, rows in items for _, _, f in rows], float)
    y = np.array([1 if dia in set(q["evidence"]) else 0 for q, rows in items for dia, _, _ in rows])
    return LogisticRegression(C=C, fit_intercept=False, max_iter=5000).fit(x, y).coef_[0]


def proxies(items, weights):
    """Recall within each budget, packing turns by their score (no date lines, no near-duplicates)."""
    total = defaultdict(float)
    for q, rows in items:
        evidence = set(q["evidence"])
        order = sorted(rows, key=lambda r: -sigmoid(float(np.dot(weights, r[2]))) / max(1, r[1]) ** TOKENS_EXPONENT)
        for budget in BUDGETS:
            got, left = set(), budget
            for dia, tokens, _ in order:
                if tokens <= left:
                    left -= tokens
                    got.add(dia)
            total[f"within_{budget}"] += len(got & evidence) / len(evidence)
    return {k: v / len(items) for k, v in total.items()}


def cross_validate(everything, by_conversation):
    """Each conversation's proxies under the weights fitted on the others, then their mean."""
    mean = defaultdict(float)
    for held in everything:
        w = fit([i for c in everything if c != held for i in by_conversation[c]])
        p = proxies(by_conversation[held], w)
        print(held, " ".join(f"{k} {v:.3f}" for k, v in p.items()))
        for k, v in p.items():
            mean[k] += v / len(everything)
    print("mean", " ".join(f"{k} {v:.3f}" for k, v in mean.items()))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("cv", "ship"):
        sys.exit(__doc__)
    command, path = sys.argv[1], sys.argv[2]
    by_conversation = defaultdict(list)
    for q, rows in dataset([json.loads(line) for line in open(path, encoding="utf-8")]):
        by_conversation[q["conversation"]].append((q, rows))
    everything = sorted(by_conversation)
    if command == "ship":
        ship(PRODUCT, FOLDS, FEATURES, fit, by_conversation, "tools/fit-learned-relevance/fit_turns.py")
        return
    cross_validate(everything, by_conversation)


if __name__ == "__main__":
    main()
