"""The labelled sets the reader learns from, and how one labelled sentence becomes the reader's input.

The ninth and tenth sets are the judges: this module refuses to load them, so nothing here can be trained,
tuned or chosen on them. They are scored from Java, on the shipped model, in aggregate only.
"""
from dataclasses import dataclass
from pathlib import Path

SETS_DIR = Path("shared-model/src/test/resources/deontic")
DEVELOPMENT_SETS = (
    "labelled-sentences.tsv",
    "unseen-sentences.tsv",
    "held-out-sentences.tsv",
    "fourth-set-sentences.tsv",
    "fifth-set-sentences.tsv",
    "sixth-set-sentences.tsv",
    "seventh-set-sentences.tsv",
    "eighth-set-sentences.tsv",
)
JUDGES = ("ninth-set-sentences.tsv", "tenth-set-sentences.tsv")
LABELS = ("N", "O", "F", "P")  # class index order of the model's output


@dataclass(frozen=True)
class Example:
    set_name: str
    source: str
    context: str
    sentence: str
    label: int  # index into LABELS


def section_context(section: str) -> str:
    """The two nearest headings above the sentence, '#' marks removed, nearest last: what the model reads
    before the sentence (RuleReader.context in Java builds the same string)."""
    if not section:
        return ""
    titles = [h.lstrip("#").strip() for h in section.split(" > ")]
    return " > ".join(titles[-2:])


def load(name: str, root: Path) -> list[Example]:
    if name in JUDGES:
        raise ValueError(f"{name} is a judge: it is never read for training or choosing")
    examples, columns = [], None
    with open(root / SETS_DIR / name, encoding="utf-8") as tsv:
        for line in tsv:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if columns is None:
                columns = parts
                continue
            row = dict(zip(columns, parts))
            examples.append(Example(name, row["source"], section_context(row.get("section", "")),
                                    row["sentence"], LABELS.index(row["label"])))
    return examples


def development(root: Path) -> list[Example]:
    return [e for name in DEVELOPMENT_SETS for e in load(name, root)]
