"""Trains the rule reader on the development sets and ships it (README.md beside this file).

  python tools/train-rule-reader/train.py cv     # cross-validation over the development sets, the threshold and
                                                 # the combination with the lexer; writes logs/
  python tools/train-rule-reader/train.py ship   # trains on every development set, exports the ONNX model, its
                                                 # settings and the parity fixture into shared-model

Run from the repository root. Seeded: two runs write the same numbers.
"""
import argparse
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
PARITY_SENTENCES = (
    ("Commit Convention", "Never add Co-Authored-By agents in commit message."),
    ("Setup", "Run `pnpm install` to install dependencies"),
    ("Project Overview", "This is a monorepo using pnpm workspaces."),
    ("Who You Are", "You can spawn an ACP session when a task requires code."),
    ("", "The scheduler never runs user code."),
    ("Testing > Writing tests", "Prefer `toMatchInlineSnapshot` over `toContain`; update the snapshot instead of reverting it."),
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


def cross_validate(examples, encoded, labels, log) -> dict[str, np.ndarray]:
    """Out-of-fold probabilities of the fine-tuned reader (fp32 and int8) and of the head over frozen states."""
    onnx_file, _ = encoder.files(ENCODER, CACHE)
    names = np.array([e.set_name for e in examples])
    out = {k: np.zeros((len(examples), 4), dtype=np.float32) for k in ("finetune", "finetune-int8", "head")}
    states = features.cached("bge-small-en-v1.5-q", examples, CACHE)
    for fold, held in enumerate(FOLDS):
        test = np.isin(names, held)
        train_idx, test_idx = np.flatnonzero(~test), np.flatnonzero(test)
        started = time.time()
        log(f"fold {fold + 1}: held out {', '.join(held)} ({len(test_idx)} sentences)")
        model = finetune.train(onnx_file, [encoded[i] for i in train_idx], labels[train_idx], SEED, EPOCHS, LR, log=log)
        out["finetune"][test_idx] = finetune.predict(model, [encoded[i] for i in test_idx])
        exported = CACHE / f"fold{fold + 1}.onnx"
        finetune.export(model, exported)
        out["finetune-int8"][test_idx] = onnx_probabilities(quantized(exported), [encoded[i] for i in test_idx])
        hd = head.train([states[i] for i in train_idx], labels[train_idx], SEED, epochs=20, lr=1e-3,
                        weight_decay=0.01, width=128)
        out["head"][test_idx] = head.predict(hd, [states[i] for i in test_idx])
        log(f"  {time.time() - started:.0f} s")
    return out


def cv(args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    log = log_to(LOGS / "cv.md")
    examples = sets.development(ROOT)
    inputs = encoder.InputEncoder(encoder.files(ENCODER, CACHE)[1])
    encoded = [inputs.encode(e.context, e.sentence) for e in examples]
    labels = np.array([e.label for e in examples], dtype=np.int64)
    log(f"# Rule reader: cross-validation over the development sets (seed {SEED})")
    log()
    log(f"{len(examples)} sentences of {len(sets.DEVELOPMENT_SETS)} development sets; the judges (ninth, tenth) are not read.")
    log(f"Fine-tune: {ENCODER}, {EPOCHS} epochs, learning rate {LR}; head: bge-small-en-v1.5-q frozen, 20 epochs.")
    log("```")
    predictions = cross_validate(examples, encoded, labels, log)
    log("```")
    np.savez(LOGS / "cv-predictions.npz", **{k.replace("-", "_"): v for k, v in predictions.items()}, labels=labels,
             sets=np.array([e.set_name for e in examples]))
    combine.report(examples, predictions, HERE / "frozen-lexers/frozen-lexer-predictions.tsv", log)


def ship(args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    log = log_to(LOGS / "ship.md")
    chosen = json.loads((LOGS / "chosen.json").read_text())
    examples = sets.development(ROOT)
    onnx_file, tokenizer = encoder.files(ENCODER, CACHE)
    inputs = encoder.InputEncoder(tokenizer)
    encoded = [inputs.encode(e.context, e.sentence) for e in examples]
    labels = np.array([e.label for e in examples], dtype=np.int64)
    log(f"# Rule reader: the shipped model (seed {SEED})")
    log()
    log(f"Trained on all {len(examples)} development sentences: {ENCODER}, {EPOCHS} epochs, learning rate {LR}.")
    log("```")
    model = finetune.train(onnx_file, encoded, labels, SEED, EPOCHS, LR, log=log)
    log("```")
    fp32 = CACHE / "rule-reader-fp32.onnx"
    finetune.export(model, fp32)
    shipped = quantized(fp32) if chosen["model"].endswith("int8") else fp32
    target = RESOURCES / "rule-reader.onnx"
    target.write_bytes(shipped.read_bytes())
    (RESOURCES / "rule-reader.properties").write_text(
        "# Written by tools/train-rule-reader/train.py ship; the threshold was chosen by its cv (logs/cv.md).\n"
        f"encoder={ENCODER}\ncombination={chosen['combination']}\nthreshold={chosen['threshold']}\nmax.tokens={encoder.MAX_TOKENS}\n"
        f"context.tokens={encoder.CONTEXT_TOKENS}\nlabels={','.join(sets.LABELS)}\n", encoding="utf-8")
    probabilities = onnx_probabilities(target, encoded)
    decided = 1 - probabilities[:, 0] >= chosen["threshold"]
    actual = labels != 0
    tp = int((decided & actual).sum())
    log(f"Shipped {target.name} ({chosen['model']}): {target.stat().st_size:,} bytes (fp32 {fp32.stat().st_size:,}).")
    log(f"On its own training sentences (not a held-out score): precision {tp / decided.sum():.3f}, "
        f"recall {tp / actual.sum():.3f}; probability sum {probabilities.sum():.6f}.")
    parity = [inputs.encode(c, s) for c, s in PARITY_SENTENCES]
    rows = onnx_probabilities(target, parity)
    with open(FIXTURE, "w", encoding="utf-8") as fixture:
        fixture.write("# The shipped rule-reader.onnx's probabilities (N, O, F, P) as train.py ship computed them with\n"
                      "# ONNX Runtime in Python; RuleReaderParityTest requires the Java reader to give the same.\n"
                      "context\tsentence\tN\tO\tF\tP\n")
        for (c, s), p in zip(PARITY_SENTENCES, rows):
            fixture.write(f"{c}\t{s}\t" + "\t".join(f"{x:.6f}" for x in p) + "\n")
    log(f"Parity fixture: {FIXTURE}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("cv", "ship"))
    parser.add_argument("--threads", type=int, default=2, help="torch threads (the results depend on nothing else)")
    args = parser.parse_args()
    {"cv": cv, "ship": ship}[args.command](args)


if __name__ == "__main__":
    main()
