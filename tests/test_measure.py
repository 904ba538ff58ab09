"""kvlab latency, kvlab serve and kvlab measure: the model's fit, and the experiment recorded against a simulation.

The servers run as subprocesses on port 0 (each prints the port it got) with a large --speed, so the
whole file takes a few seconds. The failures are served by a small raw-socket server that misbehaves.
"""
import json
import re
import socket
import subprocess
import sys
import threading
import time

import pytest

from helpers import ROOT, STAND_IN, call_main, clean_env
from kvlab import cli, latency, measure
from kvlab.measure import question
from kvlab.summarize import FIELDS, read_records, summarize

SPEED = 40
TOKENS = 200
# A model whose groups stay far apart after --speed, and whose CPU write cost shows through the noise.
TEST_MODEL = latency.LatencyModel(prefill_fixed_ms=50, prefill_ms_per_token=5.0, load_fixed_ms=5,
                                  load_ms_per_byte=15 / (TOKENS * latency.KV_BYTES_PER_TOKEN),
                                  write_fixed_ms=200, write_ms_per_token=0.0, decode_ms_per_token=1.0)


# --- the latency model ------------------------------------------------------------------------------------

def test_the_fit_to_the_stand_in_gives_its_groups_and_a_bandwidth():
    model, report = latency.fit(read_records(str(STAND_IN)))
    assert model.ttft_ms("miss", 4864, False) == pytest.approx(576, abs=5)
    assert model.ttft_ms("cpu", 4864, True) == pytest.approx(48.6, abs=1)
    assert model.ttft_ms("gpu", 4864, True) == pytest.approx(30, abs=1)
    assert model.ttft_ms("miss", 4864, True) - model.ttft_ms("miss", 4864, False) == pytest.approx(12, abs=2)
    assert model.bandwidth_gb_s == pytest.approx(4864 * 28672 / 18.6e6, rel=0.05)  # 7.5 GB/s
    assert report["fixed_at_zero"] == ["load_fixed_ms", "write_ms_per_token"]  # one document length


def test_the_fit_recovers_known_parameters_exactly():
    truth = latency.LatencyModel(prefill_fixed_ms=21.5, prefill_ms_per_token=0.09, load_fixed_ms=3.25,
                                 load_ms_per_byte=1 / 12e6, write_fixed_ms=4.0, write_ms_per_token=0.002,
                                 decode_ms_per_token=0.0)
    labelled = []
    for tokens in (1000, 3000):  # two lengths: the fixed costs can be told from the per-token ones
        for config in ("baseline", "lmcache"):
            gpu, cpu = latency.capacities(config, 4500, 30000)
            for name, doc, outcome in latency.outcomes(gpu, cpu, 10, tokens, ("fwd", "fwd", "rev")):
                record = {"config": config, "pass": name, "doc": doc, "doc_tokens": tokens,
                          "ttft_ms": truth.ttft_ms(outcome, tokens, cpu > 0)}
                record["total_ms"] = record["ttft_ms"]
                labelled.append((record, outcome))
    assert {outcome for _, outcome in labelled} == {"gpu", "cpu", "miss"}
    model, report = latency.fit_labelled(labelled)
    assert report["fixed_at_zero"] == [] and report["rms_ms"] < 1e-6
    for name in latency.COLUMNS:
        assert getattr(model, name) == pytest.approx(getattr(truth, name), rel=1e-6, abs=1e-12), name


def test_a_predicted_file_has_the_labs_shape():
    model = latency.stand_in_model()
    records = latency.predict(model, "baseline") + latency.predict(model, "lmcache")
    ratio = summarize(records)["ratio"]
    assert ratio["pass2-replay"]["p50"] > 10 and ratio["pass1-cold"]["p50"] < 1
    assert [r["doc"] for r in records if r["pass"] == "pass3-reverse"][:4] == [9, 8, 7, 6]


def test_step_7_in_milliseconds_is_the_cpu_cliff_and_is_labelled_a_prediction(capsys):
    sweep = latency.predict_cpu_sweep(latency.stand_in_model())
    assert {cpu: row["misses"] for cpu, row in sweep.items()} == {
        "0": 10, "20000": 10, "30000": 10, "40000": 10, "50109": 10, "50110": 0, "56000": 0}
    assert sweep["56000"]["p50_ms"] < sweep["50109"]["p50_ms"] / 5
    cli.main(["latency", str(STAND_IN), "--samples", "50"])
    out = capsys.readouterr().out
    assert "GENERATED stand-in" in out and "PREDICTION" in out and "GB/s" in out


# --- kvlab serve and kvlab measure --------------------------------------------------------------------------

def start_server(*args):
    process = subprocess.Popen([sys.executable, "-m", "kvlab", "serve", "--port", "0", *map(str, args)],
                               cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process


def port_of(process):
    line = process.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    assert found and "SIMULATED" in line, (line, process.stderr.read() if process.poll() is not None else "")
    return int(found.group(1))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    pytest.importorskip("httpx")
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    folder = tmp_path_factory.mktemp("measure")
    model = folder / "model.json"
    model.write_text(json.dumps({"model": TEST_MODEL.as_dict()}))
    servers = {"baseline": start_server("--cpu", 0, "--gpu", 21520 * TOKENS // 4864, "--speed", SPEED,
                                        "--latency", model),
               "lmcache": start_server("--cpu", 56000 * TOKENS // 4864, "--gpu", 21520 * TOKENS // 4864,
                                       "--speed", SPEED, "--latency", model)}
    try:
        ports = {config: port_of(process) for config, process in servers.items()}
        parts = {config: folder / f"{config}.jsonl" for config in servers}
        runs = [threading.Thread(target=cli.main, args=([str(arg) for arg in [
            "measure", "--base-url", f"http://127.0.0.1:{ports[config]}", "--config", config, "--tokens", TOKENS,
            "--max-tokens", 3, "--timeout", 10, parts[config]]],)) for config in servers]  # two servers at once
        for thread in runs:
            thread.start()
        for thread in runs:
            thread.join()
        out = folder / "ttft.jsonl"
        out.write_text(parts["baseline"].read_text() + parts["lmcache"].read_text())
        yield {"out": out, "parts": parts, "ports": ports}
    finally:
        for process in servers.values():
            process.terminate()
            process.communicate(timeout=10)


def test_the_recorded_file_has_the_labs_fields_and_pass_order(recorded):
    lines = recorded["out"].read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert all(list(record) == list(FIELDS) for record in records)
    order = [(r["pass"], r["doc"]) for r in records]
    lab = [(name, doc) for name, doc, _ in latency.outcomes(1, 0, 10, 1, ("fwd", "fwd", "rev"))]
    assert order == lab + lab
    assert [r["config"] for r in records] == ["baseline"] * 30 + ["lmcache"] * 30
    assert {r["doc_tokens"] for r in records} == {TOKENS}  # exact, from the server's /tokenize
    assert all(0 < r["ttft_ms"] <= r["total_ms"] for r in records)


def test_summarize_accepts_it_and_the_settings_say_how_it_was_recorded(recorded):
    summary = summarize(read_records(str(recorded["out"])))  # its ratios: benchmarks/bench_measure.py prints them
    assert set(summary["ratio"]) == {"pass1-cold", "pass2-replay", "pass3-reverse"}
    settings = json.loads(recorded["parts"]["lmcache"].with_name("lmcache.settings.json").read_text())
    assert (settings["docs"], settings["tokens"], settings["doc_tokens"], settings["warmup"]) == (10, TOKENS, TOKENS, 1)
    assert settings["ttft"] == "first-non-empty-text" and settings["concurrency"] == 1
    mine = settings["configs"]["lmcache"]
    assert (mine["gpu_tokens"], mine["cpu_tokens"]) == (21520 * TOKENS // 4864, 56000 * TOKENS // 4864)
    assert mine["cold"]["checked_by"] == ["server"] and mine["cold"]["warm_docs"] == []
    assert [request["outcome"] for request in mine["requests"][:10]] == ["miss"] * 10
    assert [request["cached_tokens"] for request in mine["requests"][10:20]] == [TOKENS] * 10  # all found in the CPU tier


def test_notebook_06_reads_it_as_the_labs_layout(recorded):
    pytest.importorskip("pandas")
    from kvlab import ttft
    layout = ttft.layout(ttft.read(recorded["out"]))
    assert layout.problems == [] and layout.passes == ["pass1-cold", "pass2-replay", "pass3-reverse"]
    assert layout.orders == {"pass1-cold": "fwd", "pass2-replay": "fwd", "pass3-reverse": "rev"}


def test_each_request_is_where_the_simulator_and_the_server_say(recorded):
    records = read_records(str(recorded["out"]))
    gpu, cpu = 21520 * TOKENS // 4864, 56000 * TOKENS // 4864
    for config in ("baseline", "lmcache"):
        caps = (gpu, 0) if config == "baseline" else (gpu, cpu)
        mine = [r for r in records if r["config"] == config]
        said = json.loads(recorded["parts"][config].with_name(f"{config}.settings.json").read_text())
        expected = latency.outcomes(*caps, 10, TOKENS, ("fwd", "fwd", "rev"))
        assert [request["outcome"] for request in said["configs"][config]["requests"]] == [o for _, _, o in expected]
        for record, (_, _, outcome) in zip(mine, expected):
            asked = len(question(1, record["doc"]).split())
            floor = TEST_MODEL.ttft_ms(outcome, TOKENS, config == "lmcache", question_tokens=asked) / SPEED
            assert record["ttft_ms"] >= floor - 0.2, (record, outcome)  # the server slept at least that long


def test_append_adds_a_config_and_force_replaces_its_lines_a_warm_server_flagged(recorded, tmp_path, capsys,
                                                                                 no_debug):
    out = tmp_path / "ttft.jsonl"
    baseline = recorded["parts"]["baseline"].read_text()
    out.write_text(baseline)
    (tmp_path / "ttft.settings.json").write_text(recorded["parts"]["baseline"].with_name("baseline.settings.json").read_text())
    args = ["measure", "--base-url", f"http://127.0.0.1:{recorded['ports']['lmcache']}", "--config", "lmcache",
            "--tokens", TOKENS, "--warmup", 0, "--append", out]
    warm = call_main(cli.main, args, capsys)  # the fixture already read these documents: the server is warm
    assert warm.returncode == 2 and "not cold" in warm.stderr and "Restart the server" in warm.stderr, warm
    assert out.read_text() == baseline
    first = call_main(cli.main, args + ["--allow-warm"], capsys)
    assert first.returncode == 0 and "from /tokenize" in first.stdout and "--allow-warm" in first.stderr, first
    assert out.read_text().startswith(baseline) and len(out.read_text().splitlines()) == 60
    settings = json.loads((tmp_path / "ttft.settings.json").read_text())
    assert set(settings["configs"]) == {"baseline", "lmcache"} and settings["configs"]["lmcache"]["cold"]["allowed_warm"]
    again = call_main(cli.main, args + ["--allow-warm"], capsys)
    assert again.returncode == 2 and "replaces that config's lines" in again.stderr
    forced = call_main(cli.main, args + ["--allow-warm", "--force"], capsys)
    assert forced.returncode == 0 and len(out.read_text().splitlines()) == 60
    assert [json.loads(line)["config"] for line in out.read_text().splitlines()] == ["baseline"] * 30 + ["lmcache"] * 30
    other = call_main(cli.main, ["measure", "--base-url", "http://127.0.0.1:9", "--config", "lmcache", "--docs", 2,
                                 "--tokens", 50, "--append", "--force", out], capsys)  # nothing is sent: port 9 unused
    assert other.returncode == 2 and "holds another run (10 documents of 200 tokens" in other.stderr, other


def test_a_model_the_server_does_not_serve_is_refused(recorded, tmp_path, capsys, no_debug):
    result = call_main(cli.main, ["measure", "--base-url", f"http://127.0.0.1:{recorded['ports']['baseline']}",
                                  "--model", "Qwen/Qwen2.5-1.5B-Instruct", "--docs", 1, tmp_path / "t.jsonl"], capsys)
    assert result.returncode == 2 and "does not serve 'Qwen/Qwen2.5-1.5B-Instruct'" in result.stderr
    assert "kvlab-simulation" in result.stderr and not (tmp_path / "t.jsonl").exists()


def test_concurrency_sends_n_at_a_time_and_says_so(recorded, tmp_path, capsys):
    import httpx
    root = f"http://127.0.0.1:{recorded['ports']['baseline']}"
    out = tmp_path / "t.jsonl"
    result = call_main(cli.main, ["measure", "--base-url", root, "--docs", 4, "--tokens", 30, "--passes", "fwd",
                                  "--warmup", 0, "--concurrency", 2, "--allow-warm", out], capsys)
    assert result.returncode == 0 and "2 requests in flight" in result.stdout, result
    assert [json.loads(line)["doc"] for line in out.read_text().splitlines()] == [0, 1, 2, 3]
    assert json.loads((tmp_path / "t.settings.json").read_text())["concurrency"] == 2
    assert httpx.post(f"{root}/v1/completions", json={"prompt": "a\n\nb", "model": "other"}).status_code == 404


def test_the_cold_pass_judged_by_time_where_the_server_says_nothing():
    cold = [{"doc": doc, "ttft_ms": ms} for doc, ms in enumerate([31.0, 29.5, 600.0, 590.0])]
    verdict = measure.cold_verdict(cold, {"miss_ms": 580.0, "hit_ms": 30.0})
    assert verdict["checked_by"] == ["timing"] and verdict["warm_docs"] == [0, 1]
    assert measure.cold_verdict(cold, {"miss_ms": 60.0, "hit_ms": 30.0})["checked_by"] == []  # too close to tell
    said = [{"doc": 0, "ttft_ms": 5.0, "cached_tokens": 0}, {"doc": 1, "ttft_ms": 5.0, "cached_tokens": 4000}]
    verdict = measure.cold_verdict(said, {"miss_ms": 580.0, "hit_ms": 30.0}, doc_tokens=4864)
    assert verdict["checked_by"] == ["server"] and verdict["warm_docs"] == [1]  # the server's word, not the clock


def test_ctrl_c_keeps_what_was_measured_in_a_partial_file(tmp_path, capsys, monkeypatch, no_debug):
    pytest.importorskip("httpx")
    server = Misbehaving("ok")
    server.start()
    calls = []

    def interrupted(self, payload, prompt_tokens=None):
        calls.append(payload)
        if len(calls) > 3:
            raise KeyboardInterrupt
        return measure.Reply(12.5, 12.5, 20.0, 0)

    monkeypatch.setattr(measure.Client, "stream", interrupted)
    try:
        result = measure_against(server.port, tmp_path / "ttft.jsonl", capsys)
    finally:
        server.stop()
    assert result.returncode == 130 and not (tmp_path / "ttft.jsonl").exists()
    partial = tmp_path / "ttft.partial.jsonl"
    assert "3 requests measured so far are in" in result.stderr and str(partial) in result.stderr
    assert [json.loads(line)["doc"] for line in partial.read_text().splitlines()] == [0, 1, 0]


def test_serve_says_it_is_a_simulation_and_answers_without_streaming(recorded):
    import httpx
    root = f"http://127.0.0.1:{recorded['ports']['baseline']}"
    assert "simulation" in httpx.get(f"{root}/v1/models").json()["data"][0]["id"]
    prompt = "one two three\n\nWhich word comes first?"
    answers = [httpx.post(f"{root}/v1/completions", json={"prompt": prompt, "max_tokens": 2}) for _ in range(2)]
    assert [answer.headers["x-kvlab-outcome"] for answer in answers] == ["miss", "gpu"]
    assert answers[0].json()["usage"] == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9,
                                          "prompt_tokens_details": {"cached_tokens": 0}}
    assert answers[1].json()["usage"]["prompt_tokens_details"] == {"cached_tokens": 3}  # the document, as vLLM says it
    assert httpx.post(f"{root}/tokenize", json={"prompt": prompt}).json()["count"] == 7
    assert httpx.post(f"{root}/v1/completions", json={"prompt": 5}).status_code == 400


# --- failures: one line, nothing written ----------------------------------------------------------------------

class Misbehaving(threading.Thread):
    """A loopback HTTP server that answers /v1/models and /tokenize, then fails /v1/completions its own way."""

    def __init__(self, mode):
        super().__init__(daemon=True)
        self.mode = mode
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]

    def run(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            reader = connection.makefile("rb")
            try:
                self.serve(reader, connection)
            finally:
                reader.close()
                connection.shutdown(socket.SHUT_RDWR)
                connection.close()

    def serve(self, reader, connection):
        while True:
            request = reader.readline().decode()
            if not request:
                return
            length = 0
            while (line := reader.readline().decode().strip()):
                name, _, value = line.partition(":")
                length = int(value) if name.lower() == "content-length" else length
            body = reader.read(length)
            path = request.split()[1]
            if path == "/v1/models":
                self.send(connection, 200, {"data": [{"id": "broken", "max_model_len": 10 if self.mode == "context" else 99}]})
            elif path == "/tokenize":
                self.send(connection, 200, {"count": len(json.loads(body)["prompt"].split())})
            elif path == "/metrics":
                self.send(connection, 404, {"detail": "Not Found"})
            elif self.mode == "error":
                self.send(connection, 500, {"error": {"message": "the engine fell over"}})
            elif self.mode == "context":
                self.send(connection, 400, {"error": {"message": "Requested tokens (27) exceed context window of 10"}})
            elif self.mode == "silent-context" and json.loads(body).get("stream"):  # llama-cpp-python's way
                connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
                return
            elif self.mode == "silent-context":
                self.send(connection, 400, {"error": {"message": "This model's maximum context length is 10 tokens"}})
            elif self.mode == "plain":
                self.send(connection, 200, {"choices": [{"text": " a", "finish_reason": "length"}]})
            elif self.mode == "empty-first":
                connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
                connection.sendall(b'data: {"choices": [{"text": "", "finish_reason": null}]}\n\n')
                time.sleep(0.15)
                connection.sendall(b'data: {"choices": [{"text": " a", "finish_reason": "length"}]}\n\ndata: [DONE]\n\n')
                return
            else:
                connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                                   b"transfer-encoding: chunked\r\n\r\n")
                event = b'data: {"choices": [{"text": " a", "finish_reason": null}]}\n\n'
                connection.sendall(b"%x\r\n%s\r\n" % (len(event), event))
                if self.mode == "hang":
                    time.sleep(1)
                return  # "cut": the connection closes in the middle of the stream

    @staticmethod
    def send(connection, status, document):
        data = json.dumps(document).encode()
        connection.sendall(b"HTTP/1.1 %d X\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                           % (status, len(data), data))

    def stop(self):
        self.listener.close()


def measure_against(port, out, capsys, *extra):
    pytest.importorskip("httpx")
    return call_main(cli.main, ["measure", "--base-url", f"http://127.0.0.1:{port}", "--docs", 2, "--tokens", 20,
                                "--warmup", 0, *extra, out], capsys)


def assert_failed(result, out, *fragments):
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing was written" in lines[0] and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert not out.exists() and not list(out.parent.glob(f".{out.name}*"))


@pytest.fixture
def no_debug(monkeypatch):
    monkeypatch.setattr(cli, "debugging", lambda: False)


@pytest.mark.parametrize("mode, fragment", [("error", "HTTP 500"), ("cut", "stopped mid-stream"),
                                            ("hang", "sent nothing for 0.2 s"),
                                            ("plain", "answered without streaming"),
                                            ("context", "beyond its context of 10 tokens"),
                                            ("silent-context", "the server says: This model's maximum context")])
def test_a_misbehaving_server_is_one_line_and_nothing_written(mode, fragment, tmp_path, capsys, no_debug):
    server = Misbehaving(mode)
    server.start()
    try:
        result = measure_against(server.port, tmp_path / "ttft.jsonl", capsys, "--timeout", 0.2)
    finally:
        server.stop()
    assert_failed(result, tmp_path / "ttft.jsonl", fragment)


def test_ttft_waits_for_text_and_the_first_empty_event_is_kept_beside_it(tmp_path, capsys):
    server = Misbehaving("empty-first")
    server.start()
    try:
        result = measure_against(server.port, tmp_path / "ttft.jsonl", capsys, "--passes", "fwd")
    finally:
        server.stop()
    assert result.returncode == 0, result
    records = [json.loads(line) for line in (tmp_path / "ttft.jsonl").read_text().splitlines()]
    requests = json.loads((tmp_path / "ttft.settings.json").read_text())["configs"]["baseline"]["requests"]
    for record, request in zip(records, requests):
        # the server slept 0.15 s between its empty event and its text: TTFT waits for the text, and the empty event,
        # kept beside it, came first (an order, not a duration: a busy machine may delay either)
        assert record["ttft_ms"] >= 150 and request["first_event_ms"] < record["ttft_ms"], (record, request)


def test_a_server_that_is_down_is_one_line_and_nothing_written(tmp_path, capsys, no_debug):
    with socket.socket() as bound:  # bound, never listening: connections to it are refused
        bound.bind(("127.0.0.1", 0))
        result = measure_against(bound.getsockname()[1], tmp_path / "ttft.jsonl", capsys)
    assert_failed(result, tmp_path / "ttft.jsonl", "cannot reach")


def test_other_content_is_kept_and_nothing_is_sent(tmp_path, capsys, no_debug):
    out = tmp_path / "ttft.jsonl"
    out.write_text("somebody's notes\n")
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        result = measure_against(bound.getsockname()[1], out, capsys)
        again = measure_against(bound.getsockname()[1], out, capsys, "--append")
    assert result.returncode == 2 and "already holds other content" in result.stderr
    assert again.returncode == 2 and out.read_text() == "somebody's notes\n"


def test_the_lab_scripts_stay_standard_library_only():
    for name in ("kvsim.py", "scenario.py", "summarize.py"):
        text = (ROOT / "kvlab" / name).read_text()
        assert not re.search(r"^\s*(import|from)\s+(httpx|starlette|uvicorn|tqdm)", text, re.M), name


# --- a file read by its own settings -------------------------------------------------------------------------

ENGINE_TRUTH = latency.LatencyModel(prefill_fixed_ms=40, prefill_ms_per_token=0.9, load_ms_per_byte=1 / 2e6,
                                    write_fixed_ms=0.0, decode_ms_per_token=2.0, kv_bytes_per_token=8204)


def engine_like(folder, tokens=2000, cache_docs=4, warm_up_ms=11800.0):
    """A file shaped like kvlab engine's (GPU = one document, CPU = a RAM cache of 4), from a known model, with a
    slow first request (a warm-up), and its settings file beside it."""
    records = []
    for config, cpu in (("baseline", 0), ("lmcache", cache_docs * tokens)):
        for index, (name, doc, outcome) in enumerate(latency.outcomes(tokens, cpu, 10, tokens, ("fwd", "fwd", "rev"))):
            ttft = ENGINE_TRUTH.ttft_ms(outcome, tokens, cpu > 0) * (1 + 0.01 * ((doc * 7 + index) % 5 - 2))
            records.append({"config": config, "pass": name, "doc": doc, "doc_tokens": tokens,
                            "ttft_ms": round(warm_up_ms if index == 0 else ttft, 2), "total_ms": round(ttft + 6, 2)})
    out = folder / "ttft-cpu.jsonl"
    out.write_text("".join(json.dumps(record) + "\n" for record in records))
    settings = {"docs": 10, "doc_tokens": tokens, "cache_docs": cache_docs, "warmup": 1,
                "configs": {"baseline": {"gpu_tokens": tokens, "cpu_tokens": 0},
                            "lmcache": {"gpu_tokens": tokens, "cpu_tokens": cache_docs * tokens}}}
    measure.settings_path(out).write_text(json.dumps(settings))
    return out


def test_latency_reads_a_file_by_its_own_sizes_leaves_its_warm_ups_out_and_gives_intervals(tmp_path):
    out = engine_like(tmp_path)
    result = latency.report(out, kv_bytes_per_token=8204, samples=40)
    assert result["sizes"]["origin"] == "file" and result["sizes"]["gpu_cpu"]["lmcache"] == [2000, 8000]
    assert [(w["config"], w["doc"], w["ttft_ms"]) for w in result["fit"]["warm_ups"]] == [("baseline", 0, 11800.0),
                                                                                          ("lmcache", 0, 11800.0)]
    assert all(value >= 0 for name, value in result["model"].items() if name in latency.COLUMNS)
    assert all(value > 0 for value in result["predictions"].values())
    for name, value in result["predictions"].items():
        low, high = result["intervals"][name]
        assert 0 <= low <= value <= high, (name, low, value, high)
    # step 7 at the file's own scale: the cliff at ten of its documents (20,000 tokens), not at 50,110
    sweep = {int(cpu): row["misses"] for cpu, row in result["step7_prediction"].items()}
    assert sweep[19999] == 10 and sweep[20000] == 0 and result["step7_gpu"] == 2000


def test_a_fit_that_would_give_a_negative_cost_holds_it_at_zero():
    labelled = []
    for tokens in (1000, 3000):
        for outcome, ms in (("miss", 40 + 0.5 * tokens), ("gpu", 40.0)):
            for config in ("baseline", "lmcache"):
                extra = -15.0 if (config, outcome) == ("lmcache", "miss") else 0.0  # the write "saves" 15 ms
                labelled.append(({"config": config, "doc_tokens": tokens, "ttft_ms": ms + extra, "total_ms": ms + 50},
                                 outcome))
    model, report = latency.fit_labelled(labelled)
    assert model.write_fixed_ms == 0 and "write_fixed_ms" in report["held_at_zero"]
    assert all(getattr(model, name) >= 0 for name in latency.COLUMNS)


def test_a_file_with_no_sizes_is_refused_in_one_line_and_sizes_can_be_given(tmp_path, capsys, no_debug):
    out = engine_like(tmp_path)
    measure.settings_path(out).unlink()
    result = call_main(cli.main, ["latency", out, "--samples", 10], capsys)
    assert result.returncode == 2 and "give --gpu --cpu in tokens" in result.stderr and result.stderr.count("\n") == 1
    given = call_main(cli.main, ["latency", out, "--gpu", 2000, "--cpu", 8000, "--samples", 10], capsys)
    assert given.returncode == 0 and "Sizes as given" in given.stdout and "Left out as a warm-up" in given.stdout
    assert "interval" in given.stdout and "-" not in given.stdout.split("Step 7")[1].split("p50")[1][:3]
