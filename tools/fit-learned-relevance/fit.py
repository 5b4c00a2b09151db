"""Fits LearnedRelevance's weights on the candidates `./engram eval locomo --features FILE` wrote.

    cv FILE        leave one conversation out: fit on the others, rank the held-out one's candidates, print proxies
    ship FILE      fit on every conversation (the product's weights) and without each in turn (the eval's folds)

A candidate is positive when it holds an evidence turn of its question; a window's positive counts 1/|its turns|,
so that a window is worth what one of its turns is. The product divides the probability by the candidate's tokens.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

PRODUCT = Path("shared-model/src/main/resources/io/engram/model/retrieval/learned-relevance.tsv")
FOLDS = Path("launcher/src/main/resources/io/engram/launcher/learned-relevance")
C = 1.0
BUDGETS = (500, 2000)


def samples(questions):
    x, y, weight = [], [], []
    for q in questions:
        evidence = set(q["evidence"])
        for c in q["candidates"]:
            held = bool(evidence & set(c["turns"]))
            x.append(c["features"])
            y.append(1 if held else 0)
            weight.append(1 / len(c["turns"]) if held else 1)
    return np.array(x), np.array(y), np.array(weight)


def fit(questions):
    x, y, weight = samples(questions)
    model = LogisticRegression(C=C, fit_intercept=False, max_iter=3000)  # the first feature is the bias
    model.fit(x, y, sample_weight=weight)
    return model.coef_[0]


def score(weights, candidate):
    return 1 / (1 + np.exp(-np.dot(weights, candidate["features"]))) / max(1, candidate["tokens"])


def proxies(questions, key, cut=50):
    """Recall within each budget packing whole candidates in order, and of the first 10 turns (a window's all)."""
    total = defaultdict(float)
    for q in questions:
        evidence = set(q["evidence"])
        order = sorted(q["candidates"], key=key)[:cut]
        for budget in BUDGETS:
            got, left = set(), budget
            for c in order:
                if c["tokens"] <= left:
                    left -= c["tokens"]
                    got |= evidence & set(c["turns"])
            total[f"within_{budget}"] += len(got) / len(evidence)
        turns = list(dict.fromkeys(t for c in order for t in c["turns"]))[:10]
        total["at_10"] += len(evidence & set(turns)) / len(evidence)
    return {k: v / len(questions) for k, v in total.items()}


def write(path, names, weights, note):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# {note}\n")
        for name, w in zip(names, weights):
            f.write(f"{name}\t{w:.6f}\n")


def ship(product, folds, names, fit_on, by_conversation, tool):
    """Writes the weights fitted on every conversation to product, and those fitted without each under folds."""
    everything = sorted(by_conversation)
    write(product, names, fit_on([x for c in everything for x in by_conversation[c]]),
          "fitted on " + ", ".join(everything) + f" ({tool})")
    for held in everything:
        others = [c for c in everything if c != held]
        write(folds / f"without-{held}.tsv", names, fit_on([x for c in others for x in by_conversation[c]]),
              "fitted on " + ", ".join(others) + f" ({tool})")
    print("wrote", product, "and", len(everything), "folds under", folds)


def main():
    command, path = sys.argv[1], sys.argv[2]
    questions = [json.loads(line) for line in open(path, encoding="utf-8")]
    names = questions[0]["features"]
    by_conversation = defaultdict(list)
    for q in questions:
        by_conversation[q["conversation"]].append(q)
    if command == "cv":
        fused = names.index("fused")
        mean_fused, mean_learned = defaultdict(float), defaultdict(float)
        for held in by_conversation:
            w = fit([q for c, qs in by_conversation.items() if c != held for q in qs])
            f = proxies(by_conversation[held], lambda c: -c["features"][fused])
            l = proxies(by_conversation[held], lambda c: -score(w, c))
            print(held, " ".join(f"{k} {f[k]:.3f} -> {l[k]:.3f}" for k in f))
            for k in f:
                mean_fused[k] += f[k] / len(by_conversation)
                mean_learned[k] += l[k] / len(by_conversation)
        print("mean (fused -> learned)", " ".join(f"{k} {mean_fused[k]:.3f} -> {mean_learned[k]:.3f}" for k in mean_fused))
    elif command == "ship":
        ship(PRODUCT, FOLDS, names, fit, by_conversation, "tools/fit-learned-relevance")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
