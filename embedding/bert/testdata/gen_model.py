#!/usr/bin/env python3
"""Builds a random-weight BERT sentence encoder with PyTorch, for noema's Go
encoder tests (embedding/bert). No pretrained weights are downloaded.

  gen_model.py model --out DIR --tokenizer tokenizer.json [--vocab-limit N]
               [--layers 6 --hidden 384 --heads 12 --inter 1536 --max-pos 512]
               [--pooling mean|cls] [--max-seq 256] [--seed 1] [--onnx]
      writes DIR/config.json, model.safetensors, tokenizer.json, modules.json,
      1_Pooling/config.json, sentence_bert_config.json (and model.onnx, the
      encoder with inputs input_ids and attention_mask and output
      last_hidden_state, with --onnx).

  gen_model.py embed --model DIR --ids IDS.jsonl --out OUT.jsonl [--pooling mean|cls]
      reads one JSON object a line with "ids" (token ids, [CLS] … [SEP]) and
      writes {"embedding": [...]} a line: torch's pooled, L2-normalised
      sentence embedding.

  gen_model.py random-ids --vocab N --count C --max-len L --seed S --out IDS.jsonl

Works with Debian's python3-torch (1.13) and numpy; the safetensors file is
written by hand (the format is a JSON header and raw little-endian data).
"""
import argparse, json, math, os, random, struct, sys

import torch
import torch.nn as nn


class Bert(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.c = c
        self.word = nn.Embedding(c["vocab_size"], h)
        self.pos = nn.Embedding(c["max_position_embeddings"], h)
        self.typ = nn.Embedding(c["type_vocab_size"], h)
        self.eln = nn.LayerNorm(h, eps=c["layer_norm_eps"])
        self.layers = nn.ModuleList()
        for _ in range(c["num_hidden_layers"]):
            l = nn.Module()
            l.q, l.k, l.v, l.o = (nn.Linear(h, h) for _ in range(4))
            l.ln1 = nn.LayerNorm(h, eps=c["layer_norm_eps"])
            l.i = nn.Linear(h, c["intermediate_size"])
            l.out = nn.Linear(c["intermediate_size"], h)
            l.ln2 = nn.LayerNorm(h, eps=c["layer_norm_eps"])
            self.layers.append(l)

    def named(self):
        """Tensors under Hugging Face BertModel names."""
        t = {
            "embeddings.word_embeddings.weight": self.word.weight,
            "embeddings.position_embeddings.weight": self.pos.weight,
            "embeddings.token_type_embeddings.weight": self.typ.weight,
            "embeddings.LayerNorm.weight": self.eln.weight,
            "embeddings.LayerNorm.bias": self.eln.bias,
        }
        for i, l in enumerate(self.layers):
            p = f"encoder.layer.{i}."
            for name, mod in [("attention.self.query", l.q), ("attention.self.key", l.k),
                              ("attention.self.value", l.v), ("attention.output.dense", l.o),
                              ("attention.output.LayerNorm", l.ln1), ("intermediate.dense", l.i),
                              ("output.dense", l.out), ("output.LayerNorm", l.ln2)]:
                t[p + name + ".weight"] = mod.weight
                t[p + name + ".bias"] = mod.bias
        return t

    def forward(self, input_ids, attention_mask):
        c = self.c
        b, n = input_ids.shape
        h = c["hidden_size"]
        heads = c["num_attention_heads"]
        d = h // heads
        pos = torch.arange(n, dtype=torch.long).unsqueeze(0).expand(b, n)
        x = self.word(input_ids) + self.pos(pos) + self.typ(torch.zeros_like(input_ids))
        x = self.eln(x)
        bias = (1.0 - attention_mask.to(torch.float32))[:, None, None, :] * -1e9
        for l in self.layers:
            q = l.q(x).view(b, n, heads, d).transpose(1, 2)
            k = l.k(x).view(b, n, heads, d).transpose(1, 2)
            v = l.v(x).view(b, n, heads, d).transpose(1, 2)
            s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d) + bias
            p = torch.softmax(s, dim=-1)
            ctx = torch.matmul(p, v).transpose(1, 2).reshape(b, n, h)
            x = l.ln1(l.o(ctx) + x)
            inter = l.i(x)
            inter = 0.5 * inter * (1.0 + torch.erf(inter / math.sqrt(2.0)))
            x = l.ln2(l.out(inter) + x)
        return x


def pool(hidden, mask, mode):
    if mode == "cls":
        v = hidden[:, 0]
    else:
        m = mask.unsqueeze(-1).to(hidden.dtype)
        v = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(v, p=2, dim=1)


def write_safetensors(path, tensors):
    names = sorted(tensors)
    header, blobs, off = {}, [], 0
    for n in names:
        a = tensors[n].detach().contiguous().to(torch.float32).numpy()
        b = a.astype("<f4").tobytes()
        header[n] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def load(dirname):
    c = json.load(open(os.path.join(dirname, "config.json")))
    m = Bert(c)
    with open(os.path.join(dirname, "model.safetensors"), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    import numpy as np
    named = m.named()
    with torch.no_grad():
        for name, t in named.items():
            e = header[name]
            a = np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], dtype="<f4").reshape(e["shape"])
            t.copy_(torch.from_numpy(a.copy()))
    m.eval()
    return m, c


def cmd_model(a):
    torch.manual_seed(a.seed)
    tok = json.load(open(a.tokenizer))
    if a.vocab_limit:
        tok["model"]["vocab"] = {k: v for k, v in tok["model"]["vocab"].items() if v < a.vocab_limit}
        tok["added_tokens"] = [t for t in tok["added_tokens"] if t["id"] < a.vocab_limit]
    tok["truncation"] = None
    tok["padding"] = None
    vocab = max(tok["model"]["vocab"].values()) + 1
    c = {
        "architectures": ["BertModel"], "model_type": "bert", "vocab_size": vocab,
        "hidden_size": a.hidden, "num_hidden_layers": a.layers, "num_attention_heads": a.heads,
        "intermediate_size": a.inter, "hidden_act": "gelu", "max_position_embeddings": a.max_pos,
        "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0, "pad_token_id": 0,
    }
    m = Bert(c)
    with torch.no_grad():
        for name, t in m.named().items():
            # Token embeddings dominate (so that unrelated texts get distant
            # vectors, as a trained model's would); everything else is small.
            if "LayerNorm.weight" in name:
                t.copy_(1.0 + 0.2 * torch.randn_like(t))
            elif name.endswith("bias"):
                t.copy_(0.02 * torch.randn_like(t))
            elif "word_embeddings" in name:
                t.copy_(torch.randn_like(t))
            elif "embeddings" in name:
                t.copy_(0.1 * torch.randn_like(t))
            else:
                t.copy_(a.std * torch.randn_like(t))
    os.makedirs(os.path.join(a.out, "1_Pooling"), exist_ok=True)
    json.dump(c, open(os.path.join(a.out, "config.json"), "w"), indent=2)
    json.dump(tok, open(os.path.join(a.out, "tokenizer.json"), "w"), ensure_ascii=False)
    write_safetensors(os.path.join(a.out, "model.safetensors"), m.named())
    json.dump([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ], open(os.path.join(a.out, "modules.json"), "w"), indent=2)
    json.dump({
        "word_embedding_dimension": a.hidden,
        "pooling_mode_cls_token": a.pooling == "cls",
        "pooling_mode_mean_tokens": a.pooling == "mean",
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
    }, open(os.path.join(a.out, "1_Pooling", "config.json"), "w"), indent=2)
    json.dump({"max_seq_length": a.max_seq, "do_lower_case": False},
              open(os.path.join(a.out, "sentence_bert_config.json"), "w"), indent=2)
    if a.onnx:
        m.eval()
        ids = torch.tensor([[101, 2023, 2003, 1037, 3231, 102], [101, 7592, 102, 0, 0, 0]], dtype=torch.long)
        mask = (ids != 0).to(torch.long)
        torch.onnx.export(m, (ids, mask), os.path.join(a.out, "model.onnx"),
                          input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                                        "last_hidden_state": {0: "batch", 1: "seq"}},
                          opset_version=14, do_constant_folding=True)
    print(f"wrote {a.out}: vocab {vocab}, {a.layers} layers, hidden {a.hidden}", file=sys.stderr)


def cmd_embed(a):
    torch.set_num_threads(a.threads)
    m, c = load(a.model)
    mode = a.pooling
    if not mode:
        pc = json.load(open(os.path.join(a.model, "1_Pooling", "config.json")))
        mode = "cls" if pc.get("pooling_mode_cls_token") else "mean"
    seqs = [json.loads(line)["ids"] for line in open(a.ids)]
    # Batches of similar length, padded, with the attention mask (as
    # sentence-transformers runs them); results in input order.
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    out = [None] * len(seqs)
    with torch.no_grad():
        for s in range(0, len(order), a.batch):
            idx = order[s:s + a.batch]
            n = max(len(seqs[i]) for i in idx)
            ids = torch.zeros((len(idx), n), dtype=torch.long)
            mask = torch.zeros((len(idx), n), dtype=torch.long)
            for r, i in enumerate(idx):
                ids[r, :len(seqs[i])] = torch.tensor(seqs[i])
                mask[r, :len(seqs[i])] = 1
            v = pool(m(ids, mask), mask, mode)
            for r, i in enumerate(idx):
                out[i] = v[r]
    with open(a.out, "w") as f:
        for v in out:
            f.write(json.dumps({"embedding": [float(x) for x in v]}) + "\n")


def cmd_random_ids(a):
    r = random.Random(a.seed)
    with open(a.out, "w") as f:
        for i in range(a.count):
            n = 1 + (i * 7919 + r.randrange(a.max_len)) % (a.max_len - 1) if i % 3 else 1 + r.randrange(8)
            ids = [101] + [r.randrange(999, a.vocab) for _ in range(n - 1)][: a.max_len - 2] + [102]
            f.write(json.dumps({"ids": ids}) + "\n")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("model")
    m.add_argument("--out", required=True)
    m.add_argument("--tokenizer", required=True)
    m.add_argument("--vocab-limit", type=int, default=0)
    m.add_argument("--layers", type=int, default=6)
    m.add_argument("--hidden", type=int, default=384)
    m.add_argument("--heads", type=int, default=12)
    m.add_argument("--inter", type=int, default=1536)
    m.add_argument("--max-pos", type=int, default=512)
    m.add_argument("--max-seq", type=int, default=256)
    m.add_argument("--pooling", default="mean", choices=["mean", "cls"])
    m.add_argument("--std", type=float, default=0.06)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--onnx", action="store_true")
    e = sub.add_parser("embed")
    e.add_argument("--model", required=True)
    e.add_argument("--ids", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--pooling", default="")
    e.add_argument("--threads", type=int, default=2)
    e.add_argument("--batch", type=int, default=16)
    r = sub.add_parser("random-ids")
    r.add_argument("--vocab", type=int, required=True)
    r.add_argument("--count", type=int, default=100)
    r.add_argument("--max-len", type=int, default=64)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--out", required=True)
    a = p.parse_args()
    {"model": cmd_model, "embed": cmd_embed, "random-ids": cmd_random_ids}[a.cmd](a)


if __name__ == "__main__":
    main()
