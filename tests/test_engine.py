"""kvlab engine: llama.cpp on this machine's CPU, compared request for request with the simulator.

The default suite checks the pure parts (the cache's size in documents, the comparison of groups); the
real engine runs only where the extra `engine` is installed, under the marker (`pytest -m engine`), and
in CI's opt-in job: it builds llama-cpp-python from source.
"""
import json
import subprocess
import sys

import pytest

from helpers import KVLAB, clean_env, python
from kvlab import engine, lab
from kvlab.latency import outcomes


def test_the_ram_cache_holds_exactly_its_documents_and_never_one_more():
    for docs in (1, 2, 4, 10):
        for tokens in (600, 2000, 5011):
            entry = engine.STATE_BYTES_PER_TOKEN * (tokens + 70)  # a document, its question and answer, BOS
            assert docs * entry <= engine.cache_bytes(docs, tokens) < (docs + 1) * entry


def _records(config, ttfts):
    """Two documents read fwd,fwd,rev, with these TTFTs."""
    reads = [(name, doc) for name, doc, _ in outcomes(1, 0, 2, 1, lab.FWD_FWD_REV)]
    assert len(reads) == len(ttfts)
    return [{"config": config, "pass": name, "doc": doc, "doc_tokens": 100, "ttft_ms": ttft, "total_ms": ttft + 1}
            for (name, doc), ttft in zip(reads, ttfts)]


def test_a_request_agrees_when_it_is_slow_exactly_when_the_simulator_says_miss():
    # two documents, fwd,fwd,rev; baseline: GPU = one document: miss miss miss miss gpu miss
    baseline = _records("baseline", [900, 950, 910, 940, 12, 905])
    # lmcache with a RAM cache of 2: miss miss cpu cpu gpu cpu
    cached = _records("lmcache", [930, 920, 60, 55, 14, 58])
    found = engine.compare(baseline + cached, cache_docs=2, docs=2, tokens=100, orders=lab.FWD_FWD_REV)
    assert found["baseline"][:2] == (6, 6) and found["lmcache"][:2] == (6, 6)
    assert found["lmcache"][2] == {"miss": (920, 930), "cpu": (55, 60), "gpu": (14, 14)}
    swapped = _records("lmcache", [930, 60, 920, 55, 14, 58])  # a restore where the simulator says miss
    assert engine.compare(baseline + swapped, 2, 2, 100, lab.FWD_FWD_REV)["lmcache"][:2] == (4, 6)
    flat = _records("lmcache", [50, 52, 51, 55, 49, 53])  # no group stands apart: nothing agrees
    assert engine.compare(flat, 2, 2, 100, lab.FWD_FWD_REV)["lmcache"][:2] == (0, 6)


def test_the_agreement_says_what_it_cannot_tell_apart():
    overlap = engine.tells({"miss": (900, 950), "cpu": (59, 150), "gpu": (60, 107)})
    assert "not a reuse of the live context (60.0-107.0 ms) from a restore" in overlap and "GPU tier" in overlap
    assert engine.tells({"miss": (900, 950), "cpu": (55, 60), "gpu": (14, 14)}).startswith("recompute, restore and reuse")
    assert engine.tells({"miss": (900, 950)}) == "all its requests are of one kind: nothing to tell apart"


def test_the_default_is_the_labs_shape_a_cache_smaller_than_the_documents():
    reverse = [outcome for name, _, outcome in outcomes(2000, engine.CACHE_DOCS * 2000, lab.DOCS, 2000, lab.FWD_FWD_REV)]
    assert engine.CACHE_DOCS < lab.DOCS and reverse[10:20] == ["miss"] * 10   # the replay pass recomputes
    assert reverse[20:] == ["gpu"] + ["cpu"] * 3 + ["miss"] * 6              # the reverse pass splits 1 + 3 + 6


@pytest.mark.engine
def test_the_real_engine_records_the_labs_file_and_matches_the_simulator(tmp_path):
    pytest.importorskip("llama_cpp.server")
    pytest.importorskip("gguf")
    out = tmp_path / "ttft.jsonl"
    result = subprocess.run([sys.executable, "-m", "kvlab", "engine", str(out), "--docs", "4", "--tokens", "1200",
                             "--cache-docs", "4", "--threads", "2"], cwd=tmp_path, env=clean_env(),
                            capture_output=True, encoding="utf-8", timeout=600)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [tuple(record) for record in records] == [("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")] * 24
    assert {record["doc_tokens"] for record in records} == {1200}  # exact, from /extras/tokenize
    assert [record["doc"] for record in records[:12]] == [0, 1, 2, 3, 0, 1, 2, 3, 3, 2, 1, 0]
    for config, (agree, total, groups) in engine.compare(records, 4, 4, 1200, lab.FWD_FWD_REV).items():
        assert agree == total == 12, (config, groups)
    if "no figure" not in result.stdout:  # drawn where matplotlib is installed
        assert engine.figure_path(out).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "tells a recompute" in result.stdout or "stand apart" in result.stdout
    settings = json.loads(engine.settings_path(out).read_text())
    assert (settings["docs"], settings["doc_tokens"], settings["cache_docs"]) == (4, 1200, 4) and "5011" in settings["note"]
    summary = python(KVLAB / "summarize.py", out, tmp_path / "measured.json", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    ratio = json.loads((tmp_path / "measured.json").read_text())["ratio"]
    assert ratio["pass2-replay"]["p50"] > 3  # restores against recomputes
