"""What an entity graph adds to a context's candidates, measured before building it into the read path.

    python tools/fit-learned-relevance/second_hop.py CANDIDATES LOCOMO

CANDIDATES is what `./engram eval locomo --features FILE` wrote; LOCOMO the conversations it was run on. Every turn's
entities come from `./engram mentions` (the names the pipeline indexes). Two uses of the graph are scored against
the turn model as shipped, each left out one conversation at a time as fit_turns.py's `cv` does:

- a second hop: from the hits' rarest entities (named by at least two turns) to the other turns naming them and a
  content word of the question, added to the candidates with their own features (its score, its rank);
- a graph feature of every candidate: the inverse document frequency of the hits' rarest entities it names.

Printed per variant: the share of each category's evidence among the candidates (the pool), and the held-out
recall within 500 and 2,000 tokens packed by the refitted turn model, overall and per category.
"""
import json
import math
import subprocess
import sys
from collections import Counter, defaultdict

import numpy as np

import fit_turns as ft

SEEDS, RAREST, ADDED = 10, 12, 30   # hits whose entities seed the hop, entities followed, turns added


def mentions(locomo):
    """Each turn's entities, (conversation, dialogue id) -> set, and its text as the pipeline stores it."""
    turns = []
    for sample in json.load(open(locomo, encoding="utf-8")):
        conversation = sample["conversation"]
        for s in range(1, 100):
            for t in conversation.get(f"session_{s}", []):
                text = t["text"] + (f" [image: {t['blip_caption']}]" if t.get("blip_caption") else "")
                turns.append(((sample["sample_id"], t["dia_id"]), f"{t['speaker']}: {text}".replace("\n", " ")))
    names = subprocess.run(["./engram", "mentions"], input="\n".join(t for _, t in turns) + "\n", text=True,
                           capture_output=True, check=True).stdout.strip().split("\n")
    return {key: (set(json.loads(n)), text) for (key, text), n in zip(turns, names)}


def seeds(q, weights, graph, df):
    """The rarest entities of the question's best hits, as the learned ranking orders them."""
    c = q["conversation"]
    hits = sorted(q["candidates"], key=lambda x: -ft.sigmoid(float(np.dot(weights, x["features"]))) / max(1, x["tokens"]))
    named = {e for h in hits[:SEEDS] for d in h["turns"] for e in graph.get((c, d), (set(),))[0] if df[c][e] >= 2}
    return sorted(named, key=lambda e: (df[c][e], e))[:RAREST]


def variants(by_conversation, graph):
    df, words_df, size = defaultdict(Counter), defaultdict(Counter), Counter()
    for (c, _), (names, text) in graph.items():
        size[c] += 1
        df[c].update(names)
        words_df[c].update(ft.content_words(text))
    hop, feature = defaultdict(list), defaultdict(list)
    for c, items in by_conversation.items():
        weights = ft.hit_weights(c)
        for q, rows in items:
            chosen = seeds(q, weights, graph, df)
            idf = {e: math.log(size[c] / df[c][e]) for e in chosen}
            asked = ft.content_words(q["question"])
            held = {d for d, _, _ in rows}
            found = []
            for (cc, d), (names, text) in graph.items():
                shared = asked & ft.content_words(text)
                if cc == c and d not in held and names & set(chosen) and shared:
                    found.append((sum(idf[e] for e in names & set(chosen))
                                   + sum(math.log(size[c] / words_df[c][w]) for w in shared), d, text))
            found = sorted(found, reverse=True)[:ADDED]
            extended = [(d, t, f + [0.0, 0.0]) for d, t, f in rows]
            for rank, (score, d, text) in enumerate(found, start=1):
                tokens = q["turns"].get(d, {}).get("tokens") or max(4, len(text) // 4)
                f = [1] + [0] * 9 + [len(ft.content_words(text) & asked) / max(1, len(asked)), 0,
                                     math.log1p(tokens) / math.log(257), 0, score / found[0][0], 1 / (1 + math.log(rank))]
                extended.append((d, tokens, f))
            hop[c].append((q, extended))
            scale = math.log(max(2, size[c]))
            feature[c].append((q, [(d, t, f + [min(2.0, sum(idf[e] for e in chosen
                                                            if e in graph.get((c, d), (set(),))[0]) / scale) / 2])
                                   for d, t, f in rows]))
    return {"as shipped": by_conversation, "second hop": hop, "graph feature": feature}


def report(name, by_conversation):
    pool, packed = defaultdict(list), defaultdict(lambda: defaultdict(list))
    conversations = sorted(by_conversation)
    for held in conversations:
        weights = ft.fit([i for c in conversations if c != held for i in by_conversation[c]])
        for q, rows in by_conversation[held]:
            evidence = set(q["evidence"])
            pool[q["category"]].append(len(evidence & {d for d, _, _ in rows}) / len(evidence))
            order = sorted(rows, key=lambda r: -ft.sigmoid(float(np.dot(weights, r[2]))) / max(1, r[1]) ** ft.TOKENS_EXPONENT)
            for budget in (500, 2000):
                got, left = set(), budget
                for d, tokens, _ in order:
                    if tokens <= left:
                        left -= tokens
                        got.add(d)
                for key in ("all", q["category"]):
                    packed[budget][key].append(len(got & evidence) / len(evidence))
    mean = lambda v: f"{sum(v) / len(v):.3f}"
    print(f"{name}: pool " + " ".join(f"{k}:{mean(v)}" for k, v in sorted(pool.items())))
    for budget, by in packed.items():
        print(f"  within {budget}: " + " ".join(f"{k}:{mean(v)}" for k, v in sorted(by.items(), key=str)))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    by_conversation = defaultdict(list)
    for q, rows in ft.dataset([json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]):
        by_conversation[q["conversation"]].append((q, rows))
    for name, variant in variants(by_conversation, mentions(sys.argv[2])).items():
        report(name, variant)


if __name__ == "__main__":
    main()
