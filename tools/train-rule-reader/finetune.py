"""Fine-tuning a shipped encoder (its ONNX weights loaded into a BertModel) with a four-class classifier on
[CLS] and the mean of the sentence's tokens; exported as one ONNX graph
(input_ids, attention_mask, token_type_ids [B, T] -> probabilities [B, 4]).

The word embeddings stay frozen (they hold most of the parameters and the sets are small), which also keeps
the optimiser cheap on a shared CPU.
"""
from pathlib import Path

import numpy as np
import torch
from torch import nn

import encoder
from encoder import Encoded


class RuleReaderModel(nn.Module):
    def __init__(self, bert, dropout: float = 0.1):
        super().__init__()
        self.bert = bert
        hidden = bert.config.hidden_size
        self.classify = nn.Sequential(nn.Dropout(dropout), nn.Linear(2 * hidden, 4))

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        sentence = (attention_mask * token_type_ids).to(h.dtype).unsqueeze(-1)
        mean = (h * sentence).sum(dim=1) / sentence.sum(dim=1).clamp(min=1.0)
        return self.classify(torch.cat([h[:, 0], mean], dim=-1))


def batches(encoded: list[Encoded], order: np.ndarray, size: int):
    for start in range(0, len(order), size):
        idx = order[start:start + size]
        length = max(len(encoded[i].ids) for i in idx)
        ids = np.zeros((len(idx), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, i in enumerate(idx):
            n = len(encoded[i].ids)
            ids[row, :n], mask[row, :n], types[row, :n] = encoded[i].ids, 1, encoded[i].type_ids
        yield torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types), idx


def length_buckets(encoded: list[Encoded], rng, size: int) -> np.ndarray:
    """A shuffled order in which each batch holds sentences of similar length (less padding, same epochs)."""
    order = rng.permutation(len(encoded))
    chunks = [sorted(order[i:i + size * 8], key=lambda j: len(encoded[j].ids)) for i in range(0, len(order), size * 8)]
    batched = [c[i:i + size] for c in chunks for i in range(0, len(c), size)]
    return np.concatenate([batched[i] for i in rng.permutation(len(batched))])


def train(onnx_file: Path, encoded: list[Encoded], labels: np.ndarray, seed: int, epochs: int, lr: float,
          batch_size: int = 16, log=print, model_of=None, loss=None) -> RuleReaderModel:
    """Fine-tunes the encoder with its head: the reader's four classes by default; ``model_of`` (the ONNX file to
    a model, made after seeding) and ``loss`` (outputs, targets to a loss) for another head, e.g. the reranker's."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = model_of(onnx_file) if model_of else RuleReaderModel(encoder.torch_bert(onnx_file))
    loss = loss or nn.functional.cross_entropy
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    groups = [{"params": [p for p in model.bert.parameters() if p.requires_grad], "lr": lr},
              {"params": model.classify.parameters(), "lr": lr * 20}]
    optimiser = torch.optim.AdamW(groups, weight_decay=0.01)
    steps = epochs * ((len(encoded) + batch_size - 1) // batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=[lr, lr * 20], total_steps=steps, pct_start=0.1,
                                                   anneal_strategy="linear")
    target = torch.from_numpy(labels)
    model.train()
    for epoch in range(epochs):
        total = 0.0
        for ids, mask, types, idx in batches(encoded, length_buckets(encoded, rng, batch_size), batch_size):
            step = loss(model(ids, mask, types), target[idx])
            optimiser.zero_grad()
            step.backward()
            optimiser.step()
            schedule.step()
            total += step.item() * len(idx)
        log(f"  epoch {epoch + 1}: loss {total / len(encoded):.4f}")
    return model.eval()


def predict(model: RuleReaderModel, encoded: list[Encoded]) -> np.ndarray:
    out = np.zeros((len(encoded), 4), dtype=np.float32)
    order = np.argsort([len(e.ids) for e in encoded], kind="stable")
    with torch.no_grad():
        for ids, mask, types, idx in batches(encoded, order, 32):
            out[idx] = torch.softmax(model(ids, mask, types), dim=-1).numpy()
    return out


def export(model: RuleReaderModel, path: Path) -> None:
    class Probabilities(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return torch.softmax(self.inner(input_ids, attention_mask, token_type_ids), dim=-1)

    example = tuple(torch.ones(1, 8, dtype=torch.int64) for _ in range(3))
    torch.onnx.export(Probabilities(model.eval()), example, str(path), opset_version=17, dynamo=False,
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["probabilities"],
                      dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask",
                                                                             "token_type_ids")},
                                    "probabilities": {0: "batch"}})
