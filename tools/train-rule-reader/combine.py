"""Out-of-fold scores, the threshold, and the choice of how the model and the lexer combine.

The threshold is the one that maximises F1 on the pooled out-of-fold probabilities of every development set.
The combination is chosen on the sets from the fourth on, against the lexer as it stood when each was frozen
(frozen-lexers/): the lexer of today was tuned on every development set, so its readings there are not fresh.
Of the three that combine (model decides with the lexer's modality, model or lexer, model and lexer) the one with
the highest F1 is chosen, and compared with the lexer alone.
"""
import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from sets import LABELS

FRESH_LEXER_SETS = ("fourth-set-sentences.tsv", "fifth-set-sentences.tsv", "sixth-set-sentences.tsv",
                    "seventh-set-sentences.tsv", "eighth-set-sentences.tsv")
COMBINATIONS = ("lexer alone", "model alone", "model decides, lexer's modality", "model or lexer", "model and lexer")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def score(found: np.ndarray, modality: np.ndarray, labels: np.ndarray) -> dict:
    actual = labels != 0
    tp = int((found & actual).sum())
    fp = int((found & ~actual).sum())
    fn = int((~found & actual).sum())
    right = int(((modality == labels) & found & actual).sum())
    return {"tp": tp, "fp": fp, "fn": fn, "right": right,
            "precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1), "modality": right / max(tp, 1),
            "f1": 2 * tp / max(2 * tp + fp + fn, 1)}


def line(name: str, s: dict) -> str:
    p_lo, p_hi = wilson(s["tp"], s["tp"] + s["fp"])
    r_lo, r_hi = wilson(s["tp"], s["tp"] + s["fn"])
    return (f"| {name} | {s['precision']:.3f} ({p_lo:.2f}–{p_hi:.2f}) | {s['recall']:.3f} ({r_lo:.2f}–{r_hi:.2f}) "
            f"| {s['modality']:.3f} | {s['f1']:.3f} | {s['tp']} / {s['fp']} / {s['fn']} |")


def best_threshold(probabilities: np.ndarray, labels: np.ndarray) -> float:
    rule = 1 - probabilities[:, 0]
    candidates = np.round(np.arange(0.05, 0.96, 0.01), 2)
    f1 = [score(rule >= t, np.zeros_like(labels), labels)["f1"] for t in candidates]
    return float(candidates[int(np.argmax(f1))])  # the lowest of equal bests


def model_reading(probabilities: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    return 1 - probabilities[:, 0] >= threshold, 1 + np.argmax(probabilities[:, 1:], axis=1)


def frozen_lexer(path: Path, examples) -> tuple[np.ndarray, np.ndarray]:
    """The frozen lexers' readings, aligned with examples (-1 modality where the set has none)."""
    readings = defaultdict(dict)
    with open(path, encoding="utf-8") as tsv:
        for row in csv.DictReader(tsv, delimiter="\t"):
            readings[row["set"]][int(row["index"])] = row
    found, modality, index = [], [], defaultdict(int)
    for e in examples:
        row = readings.get(e.set_name, {}).get(index[e.set_name])
        index[e.set_name] += 1
        found.append(row is not None and row["found"] == "1")
        modality.append(LABELS.index(row["modality"]) if row is not None and row["found"] == "1" else -1)
    return np.array(found), np.array(modality)


def combined(name: str, model: tuple, lexer: tuple) -> tuple[np.ndarray, np.ndarray]:
    """A combination's decision and modality. Where the lexer reads the modality, it is the lexer's where it found a
    rule and the model's elsewhere."""
    m_found, m_modality = model
    l_found, l_modality = lexer
    lexers_modality = np.where(l_found, l_modality, m_modality)
    return {"lexer alone": (l_found, l_modality), "model alone": (m_found, m_modality),
            "model decides, lexer's modality": (m_found, lexers_modality),
            "model or lexer": (m_found | l_found, lexers_modality),
            "model and lexer": (m_found & l_found, lexers_modality)}[name]


def report(examples, predictions: dict, frozen: Path, log) -> None:
    labels = np.array([e.label for e in examples])
    names = np.array([e.set_name for e in examples])
    header = "| reader | precision (95 % Wilson) | recall (95 % Wilson) | modality | F1 | tp / fp / fn |\n|---|---|---|---|---|---|"
    thresholds = {k: best_threshold(p, labels) for k, p in predictions.items()}
    log()
    log("## Out of fold, every development set, each model at its F1-best threshold")
    log()
    log(header)
    for k, p in predictions.items():
        found, modality = model_reading(p, thresholds[k])
        log(line(f"{k} (threshold {thresholds[k]:.2f})", score(found, modality, labels)))
    chosen_model = "finetune"
    if "finetune-int8" in predictions:
        fp32 = score(*model_reading(predictions["finetune"], thresholds["finetune"]), labels)
        int8 = score(*model_reading(predictions["finetune-int8"], thresholds["finetune-int8"]), labels)
        agree = model_reading(predictions["finetune-int8"], thresholds["finetune"])[0] == \
            model_reading(predictions["finetune"], thresholds["finetune"])[0]
        # int8 ships if it keeps the fp32 scores (F1 within half a point): a quarter of the size
        chosen_model = "finetune-int8" if int8["f1"] >= fp32["f1"] - 0.005 else "finetune"
        log()
        log(f"int8 against fp32: F1 {int8['f1']:.3f} vs {fp32['f1']:.3f}; at the fp32 threshold their decisions agree "
            f"on {int(agree.sum())} of {len(labels)} sentences. Shipped: {chosen_model}.")
    threshold = thresholds[chosen_model]
    log()
    log(f"## Per set, {chosen_model} out of fold")
    log()
    log(header)
    model = model_reading(predictions[chosen_model], threshold)
    for s in dict.fromkeys(names):
        sel = names == s
        log(line(s, score(model[0][sel], model[1][sel], labels[sel])))
    fresh = np.isin(names, FRESH_LEXER_SETS)
    lexer = frozen_lexer(frozen, examples)
    log()
    log(f"## Combinations with the lexer, on the {fresh.sum()} sentences of the fourth to eighth sets")
    log()
    log("Each set read by the lexer frozen with it (fresh), and by the model out of fold.")
    log()
    log(header)
    results = {}
    for name in COMBINATIONS:
        found, modality = combined(name, (model[0][fresh], model[1][fresh]), (lexer[0][fresh], lexer[1][fresh]))
        results[name] = score(found, modality, labels[fresh])
        log(line(name, results[name]))
    combining = COMBINATIONS[2:]
    best = max(combining, key=lambda n: (round(results[n]["f1"], 3), -COMBINATIONS.index(n)))
    beats = results[best]["f1"] > results["lexer alone"]["f1"]
    log()
    log(f"Chosen combination: **{best}** (the highest F1 of the three that combine; ties go to the first listed), "
        f"threshold {threshold:.2f}. It {'beats' if beats else 'does not beat'} the lexer alone here "
        f"(F1 {results[best]['f1']:.3f} vs {results['lexer alone']['f1']:.3f}), so the partitioner's rule reader "
        f"setting {'may' if beats else 'stays off by default; it can'} be switched on.")
    (Path(frozen).parent.parent / "logs/chosen.json").write_text(json.dumps(
        {"model": chosen_model, "threshold": threshold, "combination": best, "beats_lexer_on_development": bool(beats)},
        indent=2) + "\n")
