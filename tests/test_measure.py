"""kvlab latency, kvlab serve and kvlab measure: the model's fit, and the experiment recorded against a simulation.

The servers run as subprocesses on port 0 (each prints the port it got) with a large --speed, so the
whole file takes a few seconds. The failures are served by a small raw-socket server that misbehaves.
"""
import json
import re
import socket
import statistics
import subprocess
import sys
import threading
import time

import pytest

from helpers import ROOT, STAND_IN, call_main, clean_env
from kvlab import cli, latency
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
    cli.main(["latency", str(STAND_IN)])
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


def test_summarize_accepts_it_and_its_ratios_have_the_labs_shape(recorded):
    ratio = summarize(read_records(str(recorded["out"])))["ratio"]
    assert ratio["pass2-replay"]["p50"] > 2      # recomputed against loaded from CPU
    assert ratio["pass1-cold"]["p50"] < 1        # lmcache also writes the KV to its CPU tier
    assert ratio["pass3-reverse"]["p50"] > 1


def test_notebook_06_reads_it_as_the_labs_layout(recorded):
    pytest.importorskip("pandas")
    from kvlab import ttft
    layout = ttft.layout(ttft.read(recorded["out"]))
    assert layout.problems == [] and layout.passes == ["pass1-cold", "pass2-replay", "pass3-reverse"]
    assert layout.orders == {"pass1-cold": "fwd", "pass2-replay": "fwd", "pass3-reverse": "rev"}


def test_the_ttft_groups_follow_the_simulators_outcomes(recorded):
    records = read_records(str(recorded["out"]))
    gpu, cpu = 21520 * TOKENS // 4864, 56000 * TOKENS // 4864
    groups = {}
    for config in ("baseline", "lmcache"):
        caps = (gpu, 0) if config == "baseline" else (gpu, cpu)
        mine = [r for r in records if r["config"] == config]
        for record, (_, _, outcome) in zip(mine, latency.outcomes(*caps, 10, TOKENS, ("fwd", "fwd", "rev"))):
            asked = len(question(1, record["doc"]).split())
            floor = TEST_MODEL.ttft_ms(outcome, TOKENS, config == "lmcache", question_tokens=asked) / SPEED
            assert record["ttft_ms"] >= floor - 0.2, (record, outcome)  # the server slept at least that long
            groups.setdefault((config, outcome), []).append(record["ttft_ms"])
    assert sorted(groups) == [("baseline", "gpu"), ("baseline", "miss"), ("lmcache", "cpu"), ("lmcache", "gpu"),
                              ("lmcache", "miss")]
    assert len(groups[("baseline", "gpu")]) == 4 and len(groups[("lmcache", "cpu")]) == 16
    # Whatever HTTP adds is the same for every request: the groups stand apart by what the model says.
    hits = max(statistics.median(groups[key]) for key in groups if key[1] != "miss")
    apart = (TEST_MODEL.ttft_ms("miss", TOKENS, False) - TEST_MODEL.ttft_ms("cpu", TOKENS, True)) / SPEED
    assert min(statistics.median(groups[key]) for key in groups if key[1] == "miss") - hits > apart / 2


def test_append_adds_a_config_to_a_file_and_force_replaces_its_lines(recorded, tmp_path, capsys, no_debug):
    out = tmp_path / "ttft.jsonl"
    baseline = recorded["parts"]["baseline"].read_text()
    out.write_text(baseline)
    args = ["measure", "--base-url", f"http://127.0.0.1:{recorded['ports']['lmcache']}", "--config", "lmcache",
            "--tokens", TOKENS, "--docs", 1, "--passes", "fwd", "--warmup", 0, "--append", out]
    first = call_main(cli.main, args, capsys)
    assert first.returncode == 0 and "from /tokenize" in first.stdout, first
    assert out.read_text().startswith(baseline) and len(out.read_text().splitlines()) == 31
    again = call_main(cli.main, args, capsys)
    assert again.returncode == 2 and "already holds lines of config lmcache" in again.stderr
    forced = call_main(cli.main, args + ["--force"], capsys)
    assert forced.returncode == 0 and len(out.read_text().splitlines()) == 31
    assert [json.loads(line)["config"] for line in out.read_text().splitlines()] == ["baseline"] * 30 + ["lmcache"]


def test_serve_says_it_is_a_simulation_and_answers_without_streaming(recorded):
    import httpx
    root = f"http://127.0.0.1:{recorded['ports']['baseline']}"
    assert "simulation" in httpx.get(f"{root}/v1/models").json()["data"][0]["id"]
    prompt = "one two three\n\nWhich word comes first?"
    answers = [httpx.post(f"{root}/v1/completions", json={"prompt": prompt, "max_tokens": 2}) for _ in range(2)]
    assert [answer.headers["x-kvlab-outcome"] for answer in answers] == ["miss", "gpu"]
    assert answers[0].json()["usage"] == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
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
                self.send(connection, 200, {"data": [{"id": "broken"}]})
            elif path == "/tokenize":
                self.send(connection, 200, {"count": len(json.loads(body)["prompt"].split())})
            elif self.mode == "error":
                self.send(connection, 500, {"error": {"message": "the engine fell over"}})
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
                                            ("hang", "sent nothing for 0.2 s")])
def test_a_misbehaving_server_is_one_line_and_nothing_written(mode, fragment, tmp_path, capsys, no_debug):
    server = Misbehaving(mode)
    server.start()
    try:
        result = measure_against(server.port, tmp_path / "ttft.jsonl", capsys, "--timeout", 0.2)
    finally:
        server.stop()
    assert_failed(result, tmp_path / "ttft.jsonl", fragment)


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
