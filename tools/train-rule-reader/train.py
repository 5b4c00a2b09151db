"""Trains the rule reader on the development sets and ships it (README.md beside this file).

  python tools/train-rule-reader/train.py cv     # cross-validation over the development sets, the threshold and
                                                 # the combination with the lexer; writes logs/
  python tools/train-rule-reader/train.py train  # trains on every development set (cached per settings)
  python tools/train-rule-reader/train.py ship   # that model, int8, with the settings cv chose and the parity
                                                 # fixture, into shared-model (trains first unless cached)
  python tools/train-rule-reader/train.py determinism  # two short trainings, compared bit for bit

Run from the repository root. Seeded: two runs write the same numbers.
"""
import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic

import combine
import encoder
import features
import finetune
import head
import sets

ROOT = Path(".")
HERE = Path(__file__).resolve().parent
LOGS = HERE / "logs"
CACHE = Path.home() / ".cache/engram-rule-reader"
RESOURCES = ROOT / "shared-model/src/main/resources/io/engram/model/deontic"
FIXTURE = ROOT / "shared-model/src/test/resources/deontic/rule-reader-parity.tsv"
SEED = 20261202
# The shipped configuration, chosen by `cv` (logs/cv.md): fine-tune all-MiniLM-L6-v2 (fp32, what the product
# ships) for 3 epochs at 5e-5, export int8.
ENCODER = "all-minilm-l6-v2"
EPOCHS = 3
LR = 5e-5
# Folds of the cross-validation: whole sets held out together, so no document is on both sides.
FOLDS = (("unseen-sentences.tsv", "fifth-set-sentences.tsv"),
         ("labelled-sentences.tsv", "sixth-set-sentences.tsv"),
         ("held-out-sentences.tsv", "seventh-set-sentences.tsv"),
         ("fourth-set-sentences.tsv", "eighth-set-sentences.tsv"))
PARITY_SENTENCES = (  # written for the fixture or taken from development sets, never from a judge
    ("Commit Convention", "Never add Co-Authored-By agents in commit message."),
    ("Setup", "Install the dependencies with `npm ci` before the first build."),
    ("Project Overview", "The repository holds the server and its web console."),
    ("Who You Are", "You can spawn an ACP session when a task requires code."),
    ("", "The scheduler never runs user code."),
    ("Testing > Writing tests", "Prefer table-driven tests over copies of one test; keep each case's name unique."),
)


def log_to(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    out = open(path, "w", encoding="utf-8")

    def log(line: str = ""):
        print(line, flush=True)
        out.write(line + "\n")
        out.flush()
    return log


def quantized(fp32: Path) -> Path:
    int8 = fp32.with_name(fp32.stem + "-int8.onnx")
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    return int8


def onnx_probabilities(model: Path, encoded: list[encoder.Encoded]) -> np.ndarray:
    """The exported model's probabilities, one row per call as the Java reader runs it."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    rows = [session.run(None, {"input_ids": e.ids[None], "attention_mask": np.ones_like(e.ids)[None],
                               "token_type_ids": e.type_ids[None]})[0][0] for e in encoded]
    return np.array(rows, dtype=np.float32)


def cross_validate(examples, encoded, labels, folds, log) -> None:
    """Out-of-fold probabilities of the fine-tuned reader (fp32 and int8) and of the head over frozen states, each
    fold saved as it ends (logs/cv-fold-K.npz), so folds can run in separate sessions."""
    onnx_file, _ = encoder.files(ENCODER, CACHE)
    names = np.array([e.set_name for e in examples])
    states = features.cached("bge-small-en-v1.5-q", examples, CACHE)
    for fold in folds:
        held = FOLDS[fold - 1]
        test = np.isin(names, held)
        train_idx, test_idx = np.flatnonzero(~test), np.flatnonzero(test)
        started = time.time()
        log(f"fold {fold}: held out {', '.join(held)} ({len(test_idx)} sentences)")
        model = finetune.train(onnx_file, [encoded[i] for i in train_idx], labels[train_idx], SEED, EPOCHS, LR, log=log)
        exported = CACHE / f"fold{fold}.onnx"
        finetune.export(model, exported)
        hd = head.train([states[i] for i in train_idx], labels[train_idx], SEED, epochs=20, lr=1e-3,
                        weight_decay=0.01, width=128)
        np.savez(LOGS / f"cv-fold-{fold}.npz", index=test_idx,
                 finetune=finetune.predict(model, [encoded[i] for i in test_idx]),
                 finetune_int8=onnx_probabilities(quantized(exported), [encoded[i] for i in test_idx]),
                 head=head.predict(hd, [states[i] for i in test_idx]))
        log(f"  {time.time() - started:.0f} s")


def saved_folds(examples) -> tuple[list, dict]:
    """The examples some saved fold held out, and each reader's probabilities for them."""
    index, out = [], {}
    for path in sorted(LOGS.glob("cv-fold-*.npz")):
        with np.load(path) as fold:
            index.extend(fold["index"].tolist())
            for key in fold.files:
                if key != "index":
                    out.setdefault(key.replace("_", "-"), []).append(fold[key])
    return [examples[i] for i in index], {k: np.concatenate(v) for k, v in out.items()}


def cv(args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    examples, _, encoded, labels = development_inputs()
    folds = list(range(1, len(FOLDS) + 1)) if args.folds is None else [int(f) for f in args.folds.split(",") if f]
    LOGS.mkdir(parents=True, exist_ok=True)
    if folds:
        with open(LOGS / "cv-runs.log", "a", encoding="utf-8") as runs:
            def log(line=""):
                print(line, flush=True)
                runs.write(line + "\n")
                runs.flush()
            cross_validate(examples, encoded, labels, folds, log)
    held, predictions = saved_folds(examples)
    log = log_to(LOGS / "cv.md")
    log(f"# Rule reader: cross-validation over the development sets (seed {SEED})")
    log()
    log(f"{len(examples)} sentences of {len(sets.DEVELOPMENT_SETS)} development sets; the judges (ninth, tenth) are not "
        f"read. Folds run so far: {len(list(LOGS.glob('cv-fold-*.npz')))} of {len(FOLDS)}, holding out {len(held)} "
        f"sentences ({', '.join(dict.fromkeys(e.set_name for e in held))}).")
    log(f"Fine-tune: {ENCODER}, {EPOCHS} epochs, learning rate {LR}; head: bge-small-en-v1.5-q frozen, 20 epochs.")
    combine.report(held, predictions, HERE / "frozen-lexers/frozen-lexer-predictions.tsv", log)


def trained(examples, encoded, labels, log) -> Path:
    """The model trained on every development set, exported fp32; kept in the cache per configuration, so `ship`
    after `train` does not train again (`--fresh` does)."""
    fp32 = CACHE / f"rule-reader-{ENCODER}-{EPOCHS}-{LR}-{SEED}-{len(examples)}-fp32.onnx"
    if fp32.exists():
        log(f"Reusing {fp32} (trained by an earlier run with the same settings).")
        return fp32
    log(f"Trained on all {len(examples)} development sentences: {ENCODER}, {EPOCHS} epochs, learning rate {LR}.")
    log("```")
    model = finetune.train(encoder.files(ENCODER, CACHE)[0], encoded, labels, SEED, EPOCHS, LR, log=log)
    log("```")
    finetune.export(model, fp32)
    return fp32


def development_inputs():
    examples = sets.development(ROOT)
    inputs = encoder.InputEncoder(encoder.files(ENCODER, CACHE)[1])
    encoded = [inputs.encode(e.context, e.sentence) for e in examples]
    return examples, inputs, encoded, np.array([e.label for e in examples], dtype=np.int64)


def train_only(args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    examples, _, encoded, labels = development_inputs()
    if args.fresh:
        for old in CACHE.glob("rule-reader-*-fp32.onnx"):
            old.unlink()
    print(trained(examples, encoded, labels, print))


def ship(args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    log = log_to(LOGS / "ship.md")
    chosen = json.loads((LOGS / "chosen.json").read_text())
    examples, inputs, encoded, labels = development_inputs()
    log(f"# Rule reader: the shipped model (seed {SEED})")
    log()
    if args.fresh:
        for old in CACHE.glob("rule-reader-*-fp32.onnx"):
            old.unlink()
    fp32 = trained(examples, encoded, labels, log)
    int8 = quantized(fp32)
    # int8 ships if it reads as fp32 does: its decisions at the threshold agree on at least 99 % of the development
    # sentences (dynamic quantisation: int8 weights, activations scaled per call); fp32 is four times the size
    read = {m: onnx_probabilities(m, encoded) for m in (fp32, int8)}
    full, small = (1 - read[m][:, 0] >= chosen["threshold"] for m in (fp32, int8))
    agree = float((full == small).mean())
    shipped = int8 if agree >= 0.99 else fp32
    log(f"int8 against fp32 on the {len(encoded)} development sentences: decisions agree on {agree:.3%}; "
        f"shipped: {'int8' if shipped == int8 else 'fp32'}.")
    target = RESOURCES / "rule-reader.onnx"
    target.write_bytes(shipped.read_bytes())
    (RESOURCES / "rule-reader.properties").write_text(
        "# Written by tools/train-rule-reader/train.py ship; the threshold and the combination were chosen by its cv\n"
        "# (tools/train-rule-reader/logs/cv.md).\n"
        f"encoder={ENCODER}\ncombination={chosen['combination']}\nthreshold={chosen['threshold']}\n"
        f"max.tokens={encoder.MAX_TOKENS}\ncontext.tokens={encoder.CONTEXT_TOKENS}\nlabels={','.join(sets.LABELS)}\n",
        encoding="utf-8")
    probabilities = read[shipped]
    decided = 1 - probabilities[:, 0] >= chosen["threshold"]
    actual = labels != 0
    tp = int((decided & actual).sum())
    log(f"Shipped {target.name}: {target.stat().st_size:,} bytes (fp32 {fp32.stat().st_size:,}), "
        f"sha256 {hashlib.sha256(target.read_bytes()).hexdigest()}.")
    log(f"On its own training sentences (not a held-out score): precision {tp / decided.sum():.3f}, "
        f"recall {tp / actual.sum():.3f}; sum of all probabilities {probabilities.sum():.6f}.")
    rows = onnx_probabilities(target, [inputs.encode(c, s) for c, s in PARITY_SENTENCES])
    with open(FIXTURE, "w", encoding="utf-8") as fixture:
        fixture.write("# The shipped rule-reader.onnx's probabilities (N, O, F, P) as train.py ship computed them with\n"
                      "# ONNX Runtime in Python; RuleReaderParityTest requires the Java reader to give the same.\n"
                      "context\tsentence\tN\tO\tF\tP\n")
        for (c, s), p in zip(PARITY_SENTENCES, rows):
            fixture.write(f"{c}\t{s}\t" + "\t".join(f"{x:.6f}" for x in p) + "\n")
    log(f"Parity fixture: {FIXTURE}")


def determinism(args):
    """Trains twice on the same 160 sentences (two epochs) and compares the weights and the predictions bit for bit."""
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    log = log_to(LOGS / "determinism.md")
    examples, _, encoded, labels = development_inputs()
    rng = np.random.default_rng(0)
    sample = np.sort(rng.choice(len(examples), 160, replace=False))
    others = np.setdiff1d(np.arange(len(examples)), sample)[:200]
    runs = []
    for run in (1, 2):
        model = finetune.train(encoder.files(ENCODER, CACHE)[0], [encoded[i] for i in sample], labels[sample], SEED, 2,
                               LR, log=lambda line: None)
        weights = hashlib.sha256(b"".join(t.detach().numpy().tobytes() for t in model.state_dict().values())).hexdigest()
        runs.append((weights, finetune.predict(model, [encoded[i] for i in others])))
        log(f"run {run}: weights sha256 {weights[:16]}, probabilities of 200 other sentences sum {runs[-1][1].sum():.9f}")
    log(f"identical weights: {runs[0][0] == runs[1][0]}; identical predictions: {np.array_equal(runs[0][1], runs[1][1])}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("cv", "train", "ship", "determinism"))
    parser.add_argument("--fresh", action="store_true", help="train again even if the cache holds the model")
    parser.add_argument("--folds", help="cv: the folds to run, e.g. 1,3 (default all; '' reports the saved ones)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (the results depend on nothing else)")
    args = parser.parse_args()
    {"cv": cv, "train": train_only, "ship": ship, "determinism": determinism}[args.command](args)


if __name__ == "__main__":
    main()
