"""A small head over a frozen encoder's per-token hidden states: attention pooling next to the [CLS] state and the
mean, then a two-layer perceptron to four classes (N, O, F, P). P(rule) = 1 - P(N).

Exported as its own ONNX graph (hidden_states [B, T, H], attention_mask [B, T] -> probabilities [B, 4]), so
the product runs the encoder it already ships and adds only this file.
"""
import numpy as np
import torch
from torch import nn


class RuleHead(nn.Module):
    def __init__(self, hidden: int = 384, width: int = 128, dropout: float = 0.1):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.score = nn.Sequential(nn.Linear(hidden, width), nn.Tanh(), nn.Linear(width, 1))
        self.classify = nn.Sequential(nn.Dropout(dropout), nn.Linear(3 * hidden, width), nn.GELU(),
                                      nn.Dropout(dropout), nn.Linear(width, 4))

    def forward(self, hidden_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        h = self.norm(hidden_states)
        mask = attention_mask.to(h.dtype).unsqueeze(-1)
        scores = self.score(h) + (mask - 1.0) * 1e4
        attended = (torch.softmax(scores, dim=1) * h).sum(dim=1)
        mean = (h * mask).sum(dim=1) / mask.sum(dim=1)
        return self.classify(torch.cat([h[:, 0], attended, mean], dim=-1))


def batches(states: list[np.ndarray], order: np.ndarray, size: int):
    """Padded batches in the given order: (hidden [B, T, H], mask [B, T], indices)."""
    for start in range(0, len(order), size):
        idx = order[start:start + size]
        length = max(states[i].shape[0] for i in idx)
        hidden = np.zeros((len(idx), length, states[0].shape[1]), dtype=np.float32)
        mask = np.zeros((len(idx), length), dtype=np.int64)
        for row, i in enumerate(idx):
            hidden[row, :states[i].shape[0]] = states[i]
            mask[row, :states[i].shape[0]] = 1
        yield torch.from_numpy(hidden), torch.from_numpy(mask), idx


def train(states: list[np.ndarray], labels: np.ndarray, seed: int, epochs: int, lr: float, weight_decay: float,
          width: int, batch_size: int = 32) -> RuleHead:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = RuleHead(states[0].shape[1], width)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    steps = epochs * ((len(states) + batch_size - 1) // batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.1)
    target = torch.from_numpy(labels)
    model.train()
    for _ in range(epochs):
        for hidden, mask, idx in batches(states, rng.permutation(len(states)), batch_size):
            loss = nn.functional.cross_entropy(model(hidden, mask), target[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
    return model.eval()


def predict(model: RuleHead, states: list[np.ndarray]) -> np.ndarray:
    """Class probabilities [N, 4], in input order."""
    out = np.zeros((len(states), 4), dtype=np.float32)
    with torch.no_grad():
        for hidden, mask, idx in batches(states, np.arange(len(states)), 64):
            out[idx] = torch.softmax(model(hidden, mask), dim=-1).numpy()
    return out


def export(model: RuleHead, path, hidden: int = 384) -> None:
    class Probabilities(nn.Module):
        def __init__(self, head):
            super().__init__()
            self.head = head

        def forward(self, hidden_states, attention_mask):
            return torch.softmax(self.head(hidden_states, attention_mask), dim=-1)

    example = (torch.zeros(1, 8, hidden), torch.ones(1, 8, dtype=torch.int64))
    torch.onnx.export(Probabilities(model.eval()), example, str(path), input_names=["hidden_states", "attention_mask"],
                      output_names=["probabilities"], opset_version=17, dynamo=False,
                      dynamic_axes={"hidden_states": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
                                    "probabilities": {0: "batch"}})
