#!/usr/bin/env python3
"""Writes a tiny, deterministic, random-weight LLaMA model as GGUF.

2 layers, width 64, a few hundred tokens of SentencePiece-style vocabulary
(with the tokenizer.ggml.* metadata llama.cpp needs, byte fallback tokens
and a chat template), random weights from a fixed seed. It produces
nonsense, quickly and reproducibly: enough for llama.cpp to do real
prefill and decode work, so the lab can be tested against a real engine
without downloading any model.

Usage: make_tiny_gguf.py OUT.gguf
"""
import sys

import numpy as np
from gguf import GGUFWriter, TokenType

N_EMBD = 64
N_LAYER = 2
N_HEAD = 4
N_FF = 128
N_CTX = 4096
SEED = 20261202

WORDS = (
    "the of and to in is that it for on with as was at by be this are from or an not have but "
    "time token first stream latency user fast slow wait read text model answer chat code agent "
    "batch server prompt output input second per feel smooth stall jitter long short good bad "
    "what when how why which who can will would could should very more most less"
).split()


def vocabulary():
    tokens, scores, types = [], [], []

    def add(text, score, kind):
        tokens.append(text)
        scores.append(score)
        types.append(kind)

    add("<unk>", 0.0, TokenType.UNKNOWN)
    add("<s>", 0.0, TokenType.CONTROL)
    add("</s>", 0.0, TokenType.CONTROL)
    for b in range(256):
        add(f"<0x{b:02X}>", 0.0, TokenType.BYTE)
    add("\u2581", -1.0, TokenType.NORMAL)
    for c in "abcdefghijklmnopqrstuvwxyz.,!?'":
        add(c, -2.0, TokenType.NORMAL)
        add("\u2581" + c, -1.5, TokenType.NORMAL)
    # Every prefix of every word, so SentencePiece merges can build words
    # piece by piece (longer pieces score higher and win).
    seen = set(tokens)
    for w in WORDS:
        for k in range(2, len(w) + 1):
            piece = "\u2581" + w[:k]
            if piece not in seen:
                seen.add(piece)
                add(piece, -1.0 + k * 0.01, TokenType.NORMAL)
    return tokens, scores, types


def main(path):
    rng = np.random.default_rng(SEED)
    tokens, scores, types = vocabulary()
    n_vocab = len(tokens)

    def w(*shape, scale=0.08):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    writer = GGUFWriter(path, "llama")
    writer.add_name("latency-lab-tiny-random")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(0)  # all F32
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )

    writer.add_tensor("token_embd.weight", w(n_vocab, N_EMBD, scale=0.5))
    for i in range(N_LAYER):
        p = f"blk.{i}."
        writer.add_tensor(p + "attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(p + "attn_q.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(p + "attn_k.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(p + "attn_v.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(p + "attn_output.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(p + "ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(p + "ffn_gate.weight", w(N_FF, N_EMBD))
        writer.add_tensor(p + "ffn_up.weight", w(N_FF, N_EMBD))
        writer.add_tensor(p + "ffn_down.weight", w(N_EMBD, N_FF))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    writer.add_tensor("output.weight", w(n_vocab, N_EMBD, scale=0.5))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(f"wrote {path}: {n_vocab} tokens, {N_LAYER} layers, width {N_EMBD}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
