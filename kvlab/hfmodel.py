"""A tiny random-weight Hugging Face model, written here (no hub): what vLLM serves for the block-level check.

    write_model(folder)   # config.json, tokenizer.json, tokenizer_config.json, model.safetensors

A Llama architecture (2 layers, 128 wide, 2 heads of 64) with random float32 weights, and a byte-level
tokenizer with no merges: one token per byte, so a prompt of N ASCII characters is exactly N tokens. What
the model writes is noise; which prompt blocks vLLM finds cached does not depend on it. Standard library
only (the safetensors format is a JSON header and the raw little-endian bytes).
"""
import json
import os
import random
import struct
from array import array
from pathlib import Path

LAYERS, WIDTH, HEADS, FFN, CONTEXT = 2, 128, 2, 256, 8192
SPECIAL = ("<s>", "</s>")


def byte_symbols():
    """GPT-2's byte-to-unicode table: each of the 256 bytes as one printable character (the byte-level BPE's vocabulary)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    codes, extra = printable[:], 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return [chr(code) for _, code in sorted(zip(printable, codes))]


def tokenizer_json():
    vocab = {symbol: index for index, symbol in enumerate(byte_symbols())}
    added = [{"id": len(vocab) + index, "content": token, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for index, token in enumerate(SPECIAL)]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            "post_processor": None,
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": []}}


def vocab_size():
    return 256 + len(SPECIAL)


def config_json():
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": WIDTH,
            "intermediate_size": FFN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
            "num_key_value_heads": HEADS, "head_dim": WIDTH // HEADS, "max_position_embeddings": CONTEXT,
            "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "vocab_size": vocab_size(), "bos_token_id": 256,
            "eos_token_id": 257, "tie_word_embeddings": True, "torch_dtype": "float32", "hidden_act": "silu"}


def tensors():
    """{name: (shape, values)} of the model's weights."""
    rng = random.Random(0)

    def weights(rows, columns):
        return (rows, columns), [rng.gauss(0.0, 0.02) for _ in range(rows * columns)]

    found = {"model.embed_tokens.weight": weights(vocab_size(), WIDTH),
             "model.norm.weight": ((WIDTH,), [1.0] * WIDTH)}
    for layer in range(LAYERS):
        block = f"model.layers.{layer}."
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            found[block + f"self_attn.{name}.weight"] = weights(WIDTH, WIDTH)
        found[block + "mlp.gate_proj.weight"] = weights(FFN, WIDTH)
        found[block + "mlp.up_proj.weight"] = weights(FFN, WIDTH)
        found[block + "mlp.down_proj.weight"] = weights(WIDTH, FFN)
        found[block + "input_layernorm.weight"] = ((WIDTH,), [1.0] * WIDTH)
        found[block + "post_attention_layernorm.weight"] = ((WIDTH,), [1.0] * WIDTH)
    return found


def safetensors_bytes(named):
    """The safetensors file of {name: (shape, float values)}, all float32."""
    header, blobs, offset = {}, [], 0
    for name, (shape, values) in named.items():
        data = array("f", values)
        if struct.pack("=f", 1.0) != struct.pack("<f", 1.0):
            data.byteswap()
        blob = data.tobytes()
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_model(folder):
    """Write the model's four files into `folder` (made if needed), each whole; the folder."""
    from .files import write_atomically
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files = {"config.json": json.dumps(config_json(), indent=1).encode(),
             "tokenizer.json": json.dumps(tokenizer_json()).encode(),
             "tokenizer_config.json": json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>",
                                                  "eos_token": "</s>", "model_max_length": CONTEXT,
                                                  "clean_up_tokenization_spaces": False}).encode(),
             "generation_config.json": json.dumps({"bos_token_id": 256, "eos_token_id": 257}).encode(),
             "model.safetensors": safetensors_bytes(tensors())}
    for name, data in files.items():
        write_atomically(folder / name, data)
    return folder


if __name__ == "__main__":
    import sys
    print(write_model(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.getcwd(), "tiny-hf-model")))
