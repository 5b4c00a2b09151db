"""Per-token hidden states of the development sentences under a frozen shipped encoder, cached on disk (the
encoder runs one row per call, which is the slow part; the heads train on the cache in seconds)."""
import hashlib
from pathlib import Path

import numpy as np

import encoder
from sets import Example


def cached(name: str, examples: list[Example], cache: Path) -> list[np.ndarray]:
    onnx_file, tokenizer = encoder.files(name, cache)
    inputs = encoder.InputEncoder(tokenizer)
    encoded = [inputs.encode(e.context, e.sentence) for e in examples]
    key = hashlib.sha256(b"".join(e.ids.tobytes() + b"|" + e.type_ids.tobytes() + b"\n" for e in encoded)).hexdigest()
    path = cache / f"states-{name}-{key[:16]}.npz"
    if path.exists():
        with np.load(path) as saved:
            return [saved[f"s{i}"] for i in range(len(examples))]
    states = encoder.hidden_states(onnx_file, encoded)
    np.savez(path, **{f"s{i}": s for i, s in enumerate(states)})
    return states
