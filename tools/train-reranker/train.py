"""An offline experiment (README.md beside this file): does a cross-encoder reranker fine-tuned from the shipped
all-MiniLM-L6-v2 improve which LoCoMo evidence turns get packed into a token budget, leave one conversation out?

    oof  CAND      per held-out conversation: fit the turn model (fit_turns) on the other three, fine-tune a
                   cross-encoder on their questions' turns, score the held-out questions' top-K turns (by the turn
                   model) out of fold -> OUT/oof-<conv>.jsonl (resumable per fold), then OUT/oof.jsonl
    eval CAND [--scored K]  the packing proxies (recall within 500 / 2000 tokens) of the baseline and the reranker
                   variants, overall and per category -> OUT/eval.md
    extend CAND --scored N   score ranks SCORED..N-1 too with the saved fold models (appended to OUT/oof.jsonl)
    cost CAND      export one fold's model to ONNX (fp32 and int8 dynamic), time ONNX Runtime (1 thread) on a batch
                   of 40 question/turn pairs, and score that fold with int8 -> OUT/cost.md, OUT/oof-int8-<conv>.jsonl

CAND is what `./engram eval locomo --features FILE` wrote (LoCoMo-derived; it stays outside the repository, and
so does everything written here: OUT is /tmp/reranker). Run from the repository root with
PYTHONPATH=tools/train-reranker:tools/train-rule-reader:tools/fit-learned-relevance.
"""
import argparse
import json
import math
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression
from torch import nn

import encoder                      # tools/train-rule-reader: the shipped encoder as a BertModel, its tokenizer
import finetune                     # tools/train-rule-reader: [CLS] + mean-of-segment-B model, batching, export
import fit_turns                    # tools/fit-learned-relevance: the product's turn model and its packing
from encoder import Encoded

OUT = Path("/tmp/reranker")
CACHE = OUT / "cache"
ENCODER = "all-minilm-l6-v2"
SEED = 20260517
EPOCHS = 1
LR = 5e-5
BATCH = 16
HARD, RANDOM = 4, 4                 # negatives per training question: the turn model's top non-evidence rows, random others
SCORED = 40                         # rows per held-out question the reranker scores (the turn model's top SCORED)
QUESTION_TOKENS, MAX_TOKENS = 40, 128
EXPONENT = fit_turns.TOKENS_EXPONENT
BUDGETS = fit_turns.BUDGETS


def log(line=""):
    print(line, flush=True)
    with open(OUT / "log.txt", "a", encoding="utf-8") as f:
        f.write(line + "\n")


# --- data -------------------------------------------------------------------------------------------------------

def load(path):
    questions = [json.loads(line) for line in open(path, encoding="utf-8")]
    for i, q in enumerate(questions):
        q["qid"] = i
    by_conversation = defaultdict(list)
    for q, rows in fit_turns.dataset(questions):
        by_conversation[q["conversation"]].append((q, rows))
    return by_conversation


def pack_key(w, row):
    return -fit_turns.sigmoid(float(np.dot(w, row[2]))) / max(1, row[1]) ** EXPONENT


def ranked(w, rows):
    return sorted(rows, key=lambda r: pack_key(w, r))


class PairEncoder:
    """[CLS] question [SEP] turn text [SEP] (segment ids 0 / 1), each tokenized with the shipped tokenizer."""

    def __init__(self):
        _, tokenizer = encoder.files(ENCODER, CACHE)
        self.inner = encoder.InputEncoder(tokenizer)
        self.cache = {}

    def ids(self, text):
        if text not in self.cache:
            self.cache[text] = self.inner.tokenizer.encode(text, add_special_tokens=False).ids
        return self.cache[text]

    def encode(self, question, text):
        q = self.ids(question)[:QUESTION_TOKENS]
        t = self.ids(text)[:MAX_TOKENS - len(q) - 3]
        ids = [self.inner.cls, *q, self.inner.sep, *t, self.inner.sep]
        types = [0] * (len(q) + 2) + [1] * (len(t) + 1)
        return Encoded(np.array(ids, dtype=np.int64), np.array(types, dtype=np.int64))


def training_pairs(items, w, rng):
    """Every evidence row, HARD top-ranked non-evidence rows under the turn model w, RANDOM other non-evidence rows."""
    pairs = []
    for q, rows in items:
        evidence = set(q["evidence"])
        order = ranked(w, rows)
        negatives = [r for r in order if r[0] not in evidence]
        rest = negatives[HARD:]
        picked = negatives[:HARD] + [rest[i] for i in rng.choice(len(rest), min(RANDOM, len(rest)), replace=False)]
        pairs += [(q, r[0], 1) for r in order if r[0] in evidence]
        pairs += [(q, r[0], 0) for r in picked]
    return pairs


# --- model ------------------------------------------------------------------------------------------------------

def model_for(onnx_file):
    model = finetune.RuleReaderModel(encoder.torch_bert(onnx_file))
    hidden = model.bert.config.hidden_size
    model.classify = nn.Sequential(nn.Dropout(0.1), nn.Linear(2 * hidden, 1))   # one logit: [CLS] + mean of the turn
    return model


def train(encoded, labels, seed):
    """finetune.train with a one-logit head and binary cross-entropy."""
    onnx_file, _ = encoder.files(ENCODER, CACHE)
    return finetune.train(onnx_file, encoded, labels.astype(np.float32), seed, EPOCHS, LR, BATCH, log=log,
                          model_of=model_for,
                          loss=lambda out, target: nn.functional.binary_cross_entropy_with_logits(out[:, 0], target))


def logits(model, encoded):
    out = np.zeros(len(encoded), dtype=np.float32)
    order = np.argsort([len(e.ids) for e in encoded], kind="stable")
    with torch.no_grad():
        for ids, mask, types, idx in finetune.batches(encoded, order, 64):
            out[idx] = model(ids, mask, types)[:, 0].numpy()
    return out


# --- oof --------------------------------------------------------------------------------------------------------

def oof(args):
    by_conversation = load(args.cand)
    pairs_encoder = PairEncoder()
    everything = sorted(by_conversation)
    for held in everything:
        path = OUT / f"oof-{held}.jsonl"
        if path.exists():
            log(f"{held}: {path} exists, skipped")
            continue
        started = time.time()
        train_items = [i for c in everything if c != held for i in by_conversation[c]]
        w = fit_turns.fit(train_items)
        pairs = training_pairs(train_items, w, np.random.default_rng(SEED))
        encoded = [pairs_encoder.encode(q["question"], q["turns"][dia]["text"]) for q, dia, _ in pairs]
        labels = np.array([y for _, _, y in pairs])
        log(f"{held}: {len(pairs)} training pairs ({labels.sum()} positive) from {len(train_items)} questions")
        model = train(encoded, labels, SEED)
        trained = time.time()
        torch.save(model.state_dict(), OUT / f"fold-{held}.pt")
        rows = []
        for q, qrows in by_conversation[held]:
            for rank, r in enumerate(ranked(w, qrows)[:SCORED]):
                rows.append((q, r[0], rank))
        z = logits(model, [pairs_encoder.encode(q["question"], q["turns"][dia]["text"]) for q, dia, _ in rows])
        write_scores(path, held, rows, z)
        log(f"{held}: trained in {trained - started:.0f} s, scored {len(rows)} rows in {time.time() - trained:.0f} s")
    if all((OUT / f"oof-{c}.jsonl").exists() for c in everything):
        with open(OUT / "oof.jsonl", "w", encoding="utf-8") as f:
            for c in everything:
                f.write((OUT / f"oof-{c}.jsonl").read_text(encoding="utf-8"))
        log(f"wrote {OUT / 'oof.jsonl'}")


def write_scores(path, held, rows, z):
    """The held-out rows' logits and probabilities, written whole or not at all (a fold's file is its checkpoint)."""
    with open(path.with_suffix(".tmp"), "w", encoding="utf-8") as f:
        for (q, dia, rank), s in zip(rows, z):
            f.write(json.dumps(dict(conversation=held, qid=q["qid"], question=q["question"], dia=dia, rank=rank,
                                    logit=round(float(s), 5), probability=round(1 / (1 + math.exp(-s)), 6))) + "\n")
    path.with_suffix(".tmp").rename(path)


def extend(args):
    """Scores each held-out conversation's rows ranked SCORED..args.scored with its saved fold model, appended to
    OUT/oof.jsonl (every row keeps its rank, so eval --scored K reads the top K)."""
    by_conversation = load(args.cand)
    everything = sorted(by_conversation)
    pairs_encoder = PairEncoder()
    onnx_file, _ = encoder.files(ENCODER, CACHE)
    for held in everything:
        path = OUT / f"oof-{held}-to{args.scored}.jsonl"
        if path.exists():
            log(f"{held}: {path} exists, skipped")
            continue
        started = time.time()
        model = model_for(onnx_file)
        model.load_state_dict(torch.load(OUT / f"fold-{held}.pt"))
        model.eval()
        w = fit_turns.fit([i for c in everything if c != held for i in by_conversation[c]])
        rows = [(q, r[0], rank) for q, qrows in by_conversation[held]
                for rank, r in enumerate(ranked(w, qrows)[:args.scored]) if rank >= SCORED]
        z = logits(model, [pairs_encoder.encode(q["question"], q["turns"][dia]["text"]) for q, dia, _ in rows])
        write_scores(path, held, rows, z)
        log(f"{held}: scored {len(rows)} more rows (ranks {SCORED}..{args.scored - 1}) in {time.time() - started:.0f} s")
    if all((OUT / f"oof-{c}-to{args.scored}.jsonl").exists() for c in everything):
        with open(OUT / "oof.jsonl", "w", encoding="utf-8") as f:
            for c in everything:
                f.write((OUT / f"oof-{c}.jsonl").read_text(encoding="utf-8"))
                f.write((OUT / f"oof-{c}-to{args.scored}.jsonl").read_text(encoding="utf-8"))
        log(f"rewrote {OUT / 'oof.jsonl'} with ranks up to {args.scored - 1}")


# --- eval -------------------------------------------------------------------------------------------------------

def read_scores(paths, scored=None):
    """(qid, dia) -> logit of the rows ranked within the turn model's top `scored` (SCORED unless told)."""
    scored = scored or SCORED
    scores = {}
    for path in paths:
        for line in open(path, encoding="utf-8"):
            s = json.loads(line)
            if s["rank"] < scored:
                scores[(s["qid"], s["dia"])] = s["logit"]
    return scores


def recall(q, order):
    evidence = set(q["evidence"])
    out = {}
    for budget in BUDGETS:
        got, left = set(), budget
        for dia, tokens in order:
            if tokens <= left:
                left -= tokens
                got.add(dia)
        out[budget] = len(got & evidence) / len(evidence)
    return out


def sig(z):
    return 1 / (1 + math.exp(-z))


def variants(by_conversation, scores, held, everything):
    """For the held-out conversation, each variant's packing order per question: {variant: [(q, [(dia, tokens)])]}."""
    train_items = [i for c in everything if c != held for i in by_conversation[c]]
    w = fit_turns.fit(train_items)
    # the turn model with the reranker's out-of-fold logit (and probability) as features, fitted on the other
    # conversations' scored rows (their logits come from rerankers that did not see them)
    stacked = {}
    # "refit only" is the control: the same refit on the same scored rows without the reranker's score
    for name, extra in (("refit only", lambda z: []), ("logit", lambda z: [z]), ("logit+prob", lambda z: [z, sig(z)])):
        x, y = [], []
        for q, rows in train_items:
            evidence = set(q["evidence"])
            for r in rows:                  # the rows its own fold scored: its top SCORED under the model without it
                if (q["qid"], r[0]) not in scores:
                    continue
                x.append(list(r[2]) + extra(scores[(q["qid"], r[0])]))
                y.append(1 if r[0] in evidence else 0)
        stacked[name] = (LogisticRegression(C=fit_turns.C, fit_intercept=False, max_iter=5000)
                         .fit(np.array(x), np.array(y)).coef_[0], extra)
    out = defaultdict(list)
    for q, rows in by_conversation[held]:
        base = ranked(w, rows)
        out["baseline"].append((q, [(r[0], r[1]) for r in base]))

        def reorder(n, key):
            head = sorted(base[:n], key=key)
            return [(r[0], r[1]) for r in head + base[n:]]

        def rerank_key(r):
            return -sig(scores[(q["qid"], r[0])]) / max(1, r[1]) ** EXPONENT

        for n in sorted({20, 40, SCORED}):
            out[f"reranker alone, top {n}"].append((q, reorder(n, rerank_key)))
        for name, (ws, extra) in stacked.items():
            def key(r, ws=ws, extra=extra):
                return -sig(float(np.dot(ws, list(r[2]) + extra(scores[(q["qid"], r[0])])))) / max(1, r[1]) ** EXPONENT
            for n in sorted({20, 40, SCORED}):
                label = "turn model refit on scored rows, no reranker" if name == "refit only" else f"turn model + {name}"
                out[f"{label}, top {n}"].append((q, reorder(n, key)))
    return out, stacked


def table(results, everything, title):
    """results: {variant: {conversation: [(category, {budget: recall})]}}."""
    cats = (1, 2, 3, 4)
    lines = [f"### {title}", "",
             "| variant | mean of folds 500 / 2000 | pooled 500 / 2000 | "
             + " | ".join(f"cat {c} 500 / 2000" for c in cats) + " |",
             "|---" * (3 + len(cats)) + "|"]
    for variant, per in results.items():
        fold_mean = [np.mean([np.mean([r[b] for _, r in per[c]]) for c in per]) for b in BUDGETS]
        pooled = [np.mean([r[b] for c in per for _, r in per[c]]) for b in BUDGETS]
        cells = []
        for cat in cats:
            vals = [r for c in per for k, r in per[c] if k == cat]
            cells.append(" / ".join(f"{np.mean([v[b] for v in vals]):.3f}" for b in BUDGETS) + f" (n={len(vals)})")
        lines.append(f"| {variant} | {fold_mean[0]:.3f} / {fold_mean[1]:.3f} | {pooled[0]:.3f} / {pooled[1]:.3f} | "
                     + " | ".join(cells) + " |")
    if "baseline" in results:     # paired bootstrap over questions (pooled), 2000 resamples, seeded
        base = {b: np.array([r[b] for c in results["baseline"] for _, r in results["baseline"][c]]) for b in BUDGETS}
        lines += ["", "Pooled difference to the baseline, paired bootstrap over questions (95 % interval):", ""]
        rng = np.random.default_rng(SEED)
        draws = rng.integers(0, len(base[BUDGETS[0]]), (2000, len(base[BUDGETS[0]])))
        for variant, per in results.items():
            if variant == "baseline":
                continue
            cells = []
            for b in BUDGETS:
                d = np.array([r[b] for c in per for _, r in per[c]]) - base[b]
                lo, hi = np.percentile(d[draws].mean(axis=1), [2.5, 97.5])
                cells.append(f"{b}: {d.mean():+.3f} [{lo:+.3f}, {hi:+.3f}] (better {int((d > 0).sum())}, "
                             f"worse {int((d < 0).sum())})")
            lines.append(f"- {variant}: " + "; ".join(cells))
    per_fold = ["", "Per fold (500 / 2000):", ""]
    for variant, per in results.items():
        per_fold.append(f"- {variant}: " + ", ".join(
            f"{c} " + " / ".join(f"{np.mean([r[b] for _, r in per[c]]):.3f}" for b in BUDGETS) for c in per))
    return "\n".join(lines + per_fold) + "\n"


def evaluate(by_conversation, scores, folds, everything):
    results = defaultdict(dict)
    weights = {}
    for held in folds:
        out, stacked = variants(by_conversation, scores, held, everything)
        weights[held] = {k: v[0] for k, v in stacked.items()}
        for variant, orders in out.items():
            results[variant][held] = [(q["category"], recall(q, order)) for q, order in orders]
    return results, weights


def eval_cmd(args):
    global SCORED
    SCORED = args.scored or SCORED
    by_conversation = load(args.cand)
    everything = sorted(by_conversation)
    scores = read_scores([OUT / "oof.jsonl"], SCORED)
    results, weights = evaluate(by_conversation, scores, everything, everything)
    text = table(results, everything, f"Leave one conversation out, fp32 reranker (torch), out of fold, "
                                      f"reranker scores the turn model's top {SCORED} rows")
    text += "\nStacked turn-model weights (last features: reranker logit[, probability]):\n\n"
    for held, ws in weights.items():
        for name, w in ws.items():
            text += f"- without {held}, {name}: {np.round(w, 2).tolist()}\n"
    (OUT / f"eval-top{SCORED}.md").write_text(text, encoding="utf-8")
    print(text)


# --- cost -------------------------------------------------------------------------------------------------------

def export(model, path):
    class Probability(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return torch.sigmoid(self.inner(input_ids, attention_mask, token_type_ids))

    example = tuple(torch.ones(1, 8, dtype=torch.int64) for _ in range(3))
    torch.onnx.export(Probability(model.eval()), example, str(path), opset_version=17, dynamo=False,
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["probability"],
                      dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask",
                                                                             "token_type_ids")},
                                    "probability": {0: "batch"}})


def session(path):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def padded(encoded):
    length = max(len(e.ids) for e in encoded)
    ids = np.zeros((len(encoded), length), dtype=np.int64)
    mask, types = np.zeros_like(ids), np.zeros_like(ids)
    for i, e in enumerate(encoded):
        ids[i, :len(e.ids)], mask[i, :len(e.ids)], types[i, :len(e.ids)] = e.ids, 1, e.type_ids
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def one(e):
    return {"input_ids": e.ids[None], "attention_mask": np.ones_like(e.ids)[None], "token_type_ids": e.type_ids[None]}


def cost(args):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    torch.set_num_threads(1)
    by_conversation = load(args.cand)
    everything = sorted(by_conversation)
    held = args.fold
    onnx_file, _ = encoder.files(ENCODER, CACHE)
    model = model_for(onnx_file)
    model.load_state_dict(torch.load(OUT / f"fold-{held}.pt"))
    model.eval()
    pairs_encoder = PairEncoder()
    w = fit_turns.fit([i for c in everything if c != held for i in by_conversation[c]])
    # realistic batches: a held-out question's 40 top rows under the turn model (question + turn, as scored)
    rng = np.random.default_rng(SEED)
    picked = [by_conversation[held][i] for i in rng.choice(len(by_conversation[held]), 10, replace=False)]
    batches = [[pairs_encoder.encode(q["question"], q["turns"][r[0]]["text"]) for r in ranked(w, rows)[:40]]
               for q, rows in picked]
    fp32 = OUT / f"reranker-{held}-fp32.onnx"
    int8 = OUT / f"reranker-{held}-int8.onnx"
    # the torch reference first: after the (legacy, traced) export the module no longer computes the same numbers
    with torch.no_grad():   # one pair per call, as the ONNX single-call runs below
        reference = [np.array([torch.sigmoid(model(*[torch.from_numpy(v) for v in one(e).values()]))[0, 0].item()
                               for e in b]) for b in batches]
    export(model, fp32)
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    lengths = [len(e.ids) for b in batches for e in b]
    lines = [f"### Cost: fold without {held}, ONNX Runtime, 1 thread", "",
             f"Pairs: 10 held-out questions x their top 40 rows; tokens per pair mean {np.mean(lengths):.0f}, "
             f"median {np.median(lengths):.0f}, max {max(lengths)}; padded batch lengths "
             f"{sorted(max(len(e.ids) for e in b) for b in batches)}.", "",
             f"Files: {fp32} ({fp32.stat().st_size / 1e6:.1f} MB), {int8} ({int8.stat().st_size / 1e6:.1f} MB)", "",
             "| model | batch of 40 (padded), ms per pair | one pair per call, ms per pair |", "|---|---|---|"]
    for path in (fp32, int8):
        s = session(path)
        for b in batches[:2]:
            s.run(None, padded(b))
        started = time.perf_counter()
        batched = [s.run(None, padded(b))[0][:, 0] for b in batches]
        per_batch = (time.perf_counter() - started) * 1000 / sum(map(len, batches))
        started = time.perf_counter()
        single = [np.array([s.run(None, one(e))[0][0, 0] for e in b]) for b in batches]
        per_one = (time.perf_counter() - started) * 1000 / sum(map(len, batches))
        gap = max(float(np.max(np.abs(a - r))) for a, r in zip(single, reference))
        lines.append(f"| {path.name} | {per_batch:.2f} | {per_one:.2f} (max abs diff to torch {gap:.4f}) |")
    text = "\n".join(lines) + "\n"
    log(text)
    if args.score_int8:
        s = session(int8)
        started = time.time()
        path = OUT / f"oof-int8-{held}.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for q, rows in by_conversation[held]:
                for rank, r in enumerate(ranked(w, rows)[:SCORED]):
                    p = float(s.run(None, one(pairs_encoder.encode(q["question"], q["turns"][r[0]]["text"])))[0][0, 0])
                    p = min(max(p, 1e-7), 1 - 1e-7)
                    f.write(json.dumps(dict(conversation=held, qid=q["qid"], question=q["question"], dia=r[0], rank=rank,
                                            logit=round(math.log(p / (1 - p)), 5), probability=round(p, 6))) + "\n")
        log(f"int8 scored {held} in {time.time() - started:.0f} s")
        fp = read_scores([OUT / "oof.jsonl"])
        q8 = dict(fp)
        q8.update(read_scores([path]))
        r32, _ = evaluate(by_conversation, fp, [held], everything)
        r8, _ = evaluate(by_conversation, q8, [held], everything)
        keep = [v for v in r32 if "top 20" in v or "top 40" in v or v == "baseline"]
        merged = {f"{v} (fp32)": r32[v] for v in keep}
        merged.update({f"{v} (int8)": r8[v] for v in keep if v != "baseline"})
        text += "\n" + table(merged, everything, f"Held-out {held}: fp32 vs int8 reranker scores "
                                                 "(stacked weights fitted on the other folds' fp32 scores)")
        log(text)
    (OUT / "cost.md").write_text(text, encoding="utf-8")


def main():
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("oof", "extend", "eval", "cost"))
    parser.add_argument("--scored", type=int, help="extend: score ranks up to this; eval: read ranks below this")
    parser.add_argument("cand")
    parser.add_argument("--fold", default="conv-26", help="cost: the fold whose model is exported and timed")
    parser.add_argument("--score-int8", action="store_true", help="cost: also score that fold with the int8 model")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    {"oof": oof, "extend": extend, "eval": eval_cmd, "cost": cost}[args.command](args)


if __name__ == "__main__":
    main()
