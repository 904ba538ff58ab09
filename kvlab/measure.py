"""Record the lab's TTFT experiment against any OpenAI-compatible completions server, as the lab's JSONL.

    python -m kvlab measure --base-url http://127.0.0.1:8000 --config baseline ttft.jsonl
    python -m kvlab measure --base-url http://127.0.0.1:8001 --config lmcache --append ttft.jsonl

N synthetic documents of --tokens tokens each (their first words all differ, so no two share a cached
prefix), each followed by a short question that changes from pass to pass; the passes (default
fwd,fwd,rev: pass1-cold, pass2-replay, pass3-reverse) read them --concurrency requests at a time (1, the
lab's experiment), streaming. TTFT is the time from sending a request to the first streamed event whose
text is not empty (as LMCache's long_doc_qa waits for text; vLLM's `bench serve` takes the first event,
which vLLM never sends empty); where a server sends an empty event first, its time is kept too
(first_event_ms in the settings file). total_ms is the time to the last event. Exact lengths come from the
server's tokenize endpoint (vLLM's /tokenize, else llama.cpp's /extras/tokenize); which one is printed.

OUT gets one line per request with exactly config, pass, doc, doc_tokens, ttft_ms and total_ms, written
whole or not at all, and never over other content without --force (--append adds one config's lines to a
file of the same documents, tokens and passes). Beside it, OUT.settings.json (ttft.settings.json) says how
it was recorded, config by config: the server, its model, the sizes it reported, the warm-ups, the TTFT
definition, whether the cold pass was checked cold, and per request what the server said of its cache
(usage.prompt_tokens_details.cached_tokens, llama.cpp's tokens_cached or timings.cache_n, vLLM's
prefix-cache counters, kvlab serve's x-kvlab-outcome). A cold pass that is not cold (the server's counters
say hits, or its requests are as fast as a hit on a fresh probe document) is refused: restart the server
(--allow-warm records it anyway, flagged). Ctrl-C keeps the requests measured so far in OUT.partial.jsonl.
summarize.py reads the file when its configs are baseline and lmcache.
Needs httpx (and tqdm for the progress bar): pip install -e '.[measure]'.
"""
import json
import math
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import lab
from .errors import UserError, visible
from .i18n import t

BASE_URL, CONFIG, DOCS, TOKENS, MAX_TOKENS, PASSES, WARMUP, TIMEOUT = (
    "http://127.0.0.1:8000", "baseline", lab.DOCS, lab.MEASURED_TOKENS, 16, lab.FWD_FWD_REV, 1, 120.0)
FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")
TTFT_DEFINITION = "first-non-empty-text"
SETTINGS_FORMAT = "kvlab-ttft-settings/2"
HIT_APART = 3.0        # a probe's miss at least this many times its hit: the timing can tell a hit from a miss
WARM_SHARE = 0.5       # a cold request the server says found this share of its document cached is not cold
# Each document starts with its own word: a different first token in any tokenizer that keeps common words whole.
FIRST_WORDS = ("apple", "river", "stone", "cloud", "tiger", "maple", "ocean", "pencil", "garden", "violin",
               "castle", "forest", "window", "rocket", "silver", "button", "candle", "desert", "engine",
               "feather", "glacier", "harbor", "island", "jungle", "kettle", "ladder", "meadow", "needle",
               "orange", "planet", "quartz", "ribbon", "saddle", "tunnel", "umbrella", "valley", "wagon",
               "yellow", "zebra", "anchor", "bridge", "copper", "dragon", "empire", "falcon", "guitar",
               "hammer", "insect", "jacket", "lemon")
FILLER = ("the", "of", "and", "a", "to", "in", "is", "it", "that", "was", "for", "on", "are", "with", "as",
          "at", "be", "this", "have", "from", "or", "one", "had", "by", "word", "but", "not", "what", "all",
          "were", "we", "when", "your", "can", "said", "there", "use", "an", "each", "which", "she", "do",
          "how", "their", "if", "will", "up", "other", "about", "out", "many", "then", "them", "these")
TOKENIZERS = ("/tokenize", "/extras/tokenize")
COUNTERS = ("vllm:prefix_cache_hits", "vllm:prefix_cache_queries", "vllm:external_prefix_cache_hits")


def document(doc, words, first=None):
    """Document `doc`'s text: its own first word (or `first`), then `words` - 1 seeded filler words."""
    rng = random.Random(doc)
    return " ".join([first or FIRST_WORDS[doc]] + [rng.choice(FILLER) for _ in range(max(words - 1, 0))])


def question(number, doc):
    """The question after a document in pass `number` (1, 2, ...): it changes from pass to pass."""
    return f"Question {number}: in the text above, which word comes after word {number * 7 + doc}?"


def prompt_of(text, number, doc):
    return f"{text}\n\n{question(number, doc)}"


pass_names = lab.pass_names


def settings_path(out):
    """The settings file beside a recorded file: ttft.jsonl -> ttft.settings.json."""
    out = Path(out)
    return out.with_name(f"{out.name.removesuffix('.jsonl')}.settings.json")


def partial_path(out):
    """Where Ctrl-C keeps what was measured: ttft.jsonl -> ttft.partial.jsonl (then .partial-2, ...)."""
    out = Path(out)
    stem = out.name.removesuffix(".jsonl")
    for number in range(1, 1000):
        path = out.with_name(f"{stem}.partial{'' if number == 1 else f'-{number}'}.jsonl")
        if not path.exists():
            return path
    raise UserError(t("measure.other-content", path=out.with_name(f"{stem}.partial.jsonl")))


class Reply:
    """One streamed completion as measured: its times, and what the server said of its cache."""
    __slots__ = ("ttft_ms", "first_event_ms", "total_ms", "cached_tokens", "outcome", "counters")

    def __init__(self, ttft_ms, first_event_ms, total_ms, cached_tokens=None, outcome=None, counters=None):
        self.ttft_ms, self.first_event_ms, self.total_ms = ttft_ms, first_event_ms, total_ms
        self.cached_tokens, self.outcome, self.counters = cached_tokens, outcome, counters


def _server_message(text):
    """The server's own error message from an error body (OpenAI's error.message, FastAPI's detail), else the text."""
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if isinstance(error, list) and error and isinstance(error[0], dict):
            error = error[0].get("msg", error[0])
        if error is not None:
            return error if isinstance(error, str) else json.dumps(error)
    return text.strip()


def cached_of(event):
    """Cached prompt tokens a server reports in one event: OpenAI's usage.prompt_tokens_details.cached_tokens
    (vLLM with --enable-prompt-tokens-details, kvlab serve), llama.cpp's tokens_cached or timings.cache_n."""
    if not isinstance(event, dict):
        return None
    usage = event.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens_details"), dict):
        cached = usage["prompt_tokens_details"].get("cached_tokens")
        if isinstance(cached, int):
            return cached
    if isinstance(event.get("tokens_cached"), int):
        return event["tokens_cached"]
    timings = event.get("timings")
    if isinstance(timings, dict) and isinstance(timings.get("cache_n"), int):
        return timings["cache_n"]
    return None


def parse_counters(text):
    """vLLM's prefix-cache counters from a Prometheus /metrics page: {name: total} (summed over labels)."""
    found = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        name, _, rest = line.partition("{") if "{" in line.split(" ")[0] else line.partition(" ")
        name = name.removesuffix("_total")
        if name in COUNTERS:
            try:
                found[name] = found.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
            except (IndexError, ValueError):
                continue
    return found


class Client:
    """The HTTP side: one httpx.Client; every failure becomes a one-line UserError, worded by its cause."""

    def __init__(self, base_url, timeout):
        import httpx
        self.httpx = httpx
        self.root = base_url.rstrip("/").removesuffix("/v1")
        self.timeout = timeout
        self.http = httpx.Client(timeout=httpx.Timeout(timeout), trust_env=False)
        self.tokenizer = None
        self.context = None          # the server's context in tokens, where /v1/models says it
        self.usage_options = True    # stream_options.include_usage, until the server refuses it
        self.has_counters = False

    def close(self):
        self.http.close()

    def _fail(self, url, error):
        httpx = self.httpx
        if isinstance(error, httpx.TimeoutException) and not isinstance(error, httpx.ConnectTimeout):
            return UserError(t("measure.timeout", url=url, timeout=self.timeout))
        if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
            return UserError(t("measure.unreachable", url=self.root, reason=visible(error or type(error).__name__, 200)))
        return UserError(t("measure.cut", url=url, reason=visible(error or type(error).__name__, 200)))

    def _status(self, url, response, prompt_tokens=None):
        body = response.read().decode("utf-8", "replace") if not response.is_closed else response.text
        said = visible(_server_message(body), 300)
        if response.status_code == 404 and url.endswith("/v1/completions"):
            return UserError(t("measure.refused-404", url=url, body=said))
        if (prompt_tokens is not None and self.context is not None and 400 <= response.status_code < 500
                and prompt_tokens > self.context):
            return UserError(t("measure.beyond-context", url=url, tokens=prompt_tokens, context=self.context, body=said))
        if prompt_tokens is not None and 400 <= response.status_code < 500:
            return UserError(t("measure.refused", url=url, status=response.status_code, tokens=prompt_tokens, body=said))
        return UserError(t("measure.status", url=url, status=response.status_code, body=said))

    def request(self, method, path, **kwargs):
        url = self.root + path
        try:
            return self.http.request(method, url, **kwargs)
        except self.httpx.HTTPError as error:
            raise self._fail(url, error) from None

    def models(self):
        """The server's /v1/models entries (each a dict with an id)."""
        url = "/v1/models"
        response = self.request("GET", url)
        if response.status_code >= 400:
            raise self._status(self.root + url, response)
        try:
            entries = [entry for entry in response.json()["data"] if isinstance(entry, dict) and "id" in entry]
        except (ValueError, KeyError, TypeError):
            raise UserError(t("measure.no-model", url=self.root + url)) from None
        if not entries:
            raise UserError(t("measure.no-model", url=self.root + url))
        return entries

    def model(self, wanted=None):
        """The model to send: `wanted` if the server serves it (refused otherwise), else its first; and that entry."""
        entries = self.models()
        ids = [str(entry["id"]) for entry in entries]
        if wanted is not None and wanted not in ids:
            raise UserError(t("measure.unknown-model", model=wanted, url=self.root + "/v1/models",
                              served=", ".join(ids)))
        entry = entries[ids.index(wanted)] if wanted is not None else entries[0]
        context = entry.get("max_model_len")
        self.context = context if isinstance(context, int) and context > 0 else None
        return str(entry["id"]), entry

    def find_tokenizer(self, model):
        """The first tokenize endpoint that answers with tokens; None when neither does."""
        for path in TOKENIZERS:
            response = self.request("POST", path, json={"model": model, "prompt": "a b", "content": "a b",
                                                        "input": "a b"})
            if response.status_code < 400 and self._count(response) is not None:
                self.tokenizer = path
                return path
        return None

    def find_counters(self):
        """Whether the server's /metrics has vLLM's prefix-cache counters."""
        try:
            response = self.http.get(self.root + "/metrics")
        except self.httpx.HTTPError:
            return False
        self.has_counters = response.status_code == 200 and bool(parse_counters(response.text))
        return self.has_counters

    def counters(self):
        response = self.request("GET", "/metrics")
        return parse_counters(response.text) if response.status_code == 200 else {}

    @staticmethod
    def _count(response):
        try:
            body = response.json()
        except ValueError:
            return None
        if isinstance(body, dict) and isinstance(body.get("count"), int):
            return body["count"]
        if isinstance(body, dict) and isinstance(body.get("tokens"), list):
            return len(body["tokens"])
        return None

    def count(self, model, text):
        """Tokens in `text`: exact from the tokenize endpoint, else its words."""
        if self.tokenizer is None:
            return len(text.split())
        path = self.tokenizer
        response = self.request("POST", path, json={"model": model, "prompt": text, "content": text, "input": text,
                                                    "add_special_tokens": False})
        number = self._count(response) if response.status_code < 400 else None
        if number is None:
            raise self._status(self.root + path, response)
        return number

    def probe_usage(self, model):
        """Ask for usage in the stream (stream_options.include_usage) only where the server accepts it."""
        payload = {"model": model, "prompt": "usage probe\n\nHello?", "max_tokens": 1, "stream": True,
                   "temperature": 0, "stream_options": {"include_usage": True}}
        try:
            with self.http.stream("POST", self.root + "/v1/completions", json=payload) as response:
                self.usage_options = response.status_code < 400
                response.read()
        except self.httpx.HTTPError:  # the measured requests will meet the same failure, and name it
            self.usage_options = False

    def _why_empty(self, url, payload, prompt_tokens):
        """A stream that ended before its first event (llama-cpp-python's server ends it so when the prompt is
        beyond its context): the same request once without streaming, whose error names the cause."""
        plain = {key: value for key, value in payload.items() if key not in ("stream", "stream_options")}
        try:  # a connection of its own: the server may have dropped the pooled one with that stream
            with self.httpx.Client(timeout=self.httpx.Timeout(self.timeout), trust_env=False) as fresh:
                response = fresh.post(url, json={**plain, "max_tokens": 1})
        except self.httpx.HTTPError:
            return
        if response.status_code >= 400:
            said = visible(_server_message(response.text), 300)
            raise UserError(t("measure.empty-stream", url=url, tokens=prompt_tokens or 0, body=said))

    def stream(self, payload, prompt_tokens=None):
        """One streamed completion: a Reply; UserError when it fails, is not streamed, or stops early."""
        url = self.root + "/v1/completions"
        if self.usage_options:
            payload = {**payload, "stream_options": {"include_usage": True}}
        first_event = first_text = last = None
        finished, cached = False, None
        start = time.perf_counter()
        try:
            with self.http.stream("POST", url, json=payload) as response:
                if response.status_code >= 400:
                    raise self._status(url, response, prompt_tokens)
                outcome = response.headers.get("x-kvlab-outcome")
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    body = response.read().decode("utf-8", "replace")
                    raise UserError(t("measure.not-streaming", url=url,
                                      kind=visible(response.headers.get("content-type", "-"), 60),
                                      body=visible(body.strip(), 120)))
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    data = line[len("data:"):].strip()
                    if data == "[DONE]":
                        finished = True
                        break
                    try:
                        event = json.loads(data)
                    except ValueError:
                        raise UserError(t("measure.not-json", url=url, line=visible(data, 120))) from None
                    if isinstance(event, dict) and "error" in event:
                        raise UserError(t("measure.server-error", url=url,
                                          body=visible(_server_message(json.dumps(event)), 300)))
                    cached = cached_of(event) if cached_of(event) is not None else cached
                    choices = event.get("choices") if isinstance(event, dict) else None
                    if choices:
                        now = time.perf_counter()
                        first_event = now if first_event is None else first_event
                        text = choices[0].get("text") if isinstance(choices[0], dict) else None
                        if first_text is None and text:
                            first_text = now
                        last = now
                        finished = finished or bool(choices[0].get("finish_reason"))
        except self.httpx.HTTPError as error:
            raise self._fail(url, error) from None
        if first_event is None:  # not one event: ask once without streaming, where a server says why
            self._why_empty(url, payload, prompt_tokens)
        if first_event is None or not finished:
            raise UserError(t("measure.cut", url=url, reason=t("measure.ended-early")))
        if first_text is None:
            raise UserError(t("measure.no-text", url=url))
        return Reply((first_text - start) * 1000, (first_event - start) * 1000, (last - start) * 1000, cached, outcome)


def sized_document(client, model, doc, want, first=None):
    """(text, exact tokens) of document `doc`, its word count adjusted until the tokenizer says `want`."""
    words, low, high, best = max(want, 1), 0, None, None
    for _ in range(24):
        text = document(doc, words, first)
        got = client.count(model, text)
        if got == want:
            return text, got
        if got < want:
            low = max(low, words)
            best = (text, got) if best is None or got > best[1] else best
        else:
            high = words if high is None else min(high, words)
        guess = max(1, round(words * want / got)) if got else words * 2
        if high is not None and not low < guess < high:
            guess = (low + high) // 2
        if guess == words or (high is not None and high - low <= 1):
            break
        words = guess
    if best is None:
        text = document(doc, 1, first)
        best = (text, client.count(model, text))
    if 0 < want - best[1] <= 16:  # words too coarse (e.g. one token per character): pad with full stops
        padded = best[0] + "." * (want - best[1])
        if client.count(model, padded) == want:
            return padded, want
    print(t("measure.inexact", doc=doc, got=best[1], want=want), flush=True)
    return best


def _lines(data):
    return [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]


def existing(path, config, force, append, docs=None, tokens=None, orders=None):
    """OUT's bytes now, and the lines to keep; refuses (before anything is sent) where the rules say so:
    other content without --force, a second run of a config without --force, and --append onto a file of
    other documents, tokens or passes."""
    path = Path(path)
    if not path.parent.is_dir():
        raise UserError(t("cli.no-such-folder", folder=path.parent))
    if not path.exists():
        return None, []
    if path.is_dir():
        raise UserError(t("measure.out-is-folder", path=path))
    data = path.read_bytes()
    if not append:
        if data.strip() and not force:
            raise UserError(t("measure.other-content", path=path))
        return data, []
    lines = _lines(data)
    try:
        records = [json.loads(line) for line in lines]
        same = [line for line, record in zip(lines, records) if record.get("config") == config]
    except (ValueError, AttributeError):
        if not force:
            raise UserError(t("measure.other-content", path=path)) from None
        return data, []
    if same and not force:
        raise UserError(t("measure.same-config", path=path, config=config))
    kept = [line for line in lines if line not in same]
    if kept and docs is not None:
        theirs = _run_of([json.loads(line) for line in kept], load_settings(path))
        ours = (docs, tokens, tuple(pass_names(orders)))
        if theirs != ours:
            raise UserError(t("measure.append-other-run", path=path, theirs=_describe(theirs), ours=_describe(ours)))
    return data, kept


def _run_of(records, settings):
    """(documents, tokens asked for, pass names) of a file's records (tokens: its settings' request, else the
    records' own lengths)."""
    try:
        docs = len({record["doc"] for record in records})
        asked = settings.get("tokens") if isinstance(settings, dict) else None
        tokens = asked if isinstance(asked, int) else max(record["doc_tokens"] for record in records)
        return docs, tokens, tuple(dict.fromkeys(record["pass"] for record in records))
    except (KeyError, TypeError, ValueError):
        return None, None, ()


def _describe(run):
    docs, tokens, names = run
    return t("measure.run-is", docs=docs, tokens=tokens, passes=",".join(map(str, names)))


def load_settings(out):
    """The settings file beside `out`, as a dict, or None (absent or unreadable)."""
    try:
        data = json.loads(settings_path(out).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def cold_verdict(cold, probe=None, doc_tokens=None):
    """Is the cold pass cold? {"checked_by": [...], "warm_docs": [...], "threshold_ms": ...} from the cold
    pass's records (with the server's cached_tokens / outcome where it said them) and, where the server
    said nothing, a probe {"miss_ms", "hit_ms"} of a fresh document read twice after the passes: a cold
    request faster than halfway (on a log scale) from that hit to that miss was a hit."""
    checked, warm = [], set()
    said = [record for record in cold if record.get("cached_tokens") is not None or record.get("outcome")]
    if said:
        checked.append("server")
        for record in said:
            cached = record.get("cached_tokens")
            tokens = doc_tokens or record.get("doc_tokens") or 1
            if (cached is not None and cached >= WARM_SHARE * tokens) or record.get("outcome") in ("gpu", "cpu"):
                warm.add(record["doc"])
    threshold = None
    if not said and probe and probe.get("hit_ms") and probe.get("miss_ms", 0) >= HIT_APART * probe["hit_ms"]:
        checked.append("timing")
        threshold = math.sqrt(probe["miss_ms"] * probe["hit_ms"])  # halfway between a hit and a miss, on a log scale
        warm.update(record["doc"] for record in cold if record["ttft_ms"] < threshold)
    return {"checked_by": checked, "warm_docs": sorted(warm), "threshold_ms": threshold}


def measure(client, model, config, docs, tokens, max_tokens, orders, warmup, progress=None, concurrency=1,
            records=None, on_cold=None):
    """The records of one config, in send order (appended to `records` as they come, so that an interrupted
    run keeps them). on_cold(cold records) is called after the cold pass."""
    records = [] if records is None else records
    texts = [sized_document(client, model, doc, tokens) for doc in range(docs)]
    for number in range(warmup):  # a short document of its own: it takes little room in any cache
        client.stream({"model": model, "prompt": f"warm up {number}\n\nHello?", "max_tokens": 1, "stream": True,
                       "temperature": 0})
    counting = client.has_counters and concurrency == 1
    lock = threading.Lock()

    def one(name, number, doc):
        text, exact = texts[doc]
        before = client.counters() if counting else None
        reply = client.stream({"model": model, "prompt": prompt_of(text, number, doc), "max_tokens": max_tokens,
                               "stream": True, "temperature": 0}, prompt_tokens=exact)
        record = {"config": config, "pass": name, "doc": doc, "doc_tokens": exact, "ttft_ms": round(reply.ttft_ms, 2),
                  "total_ms": round(reply.total_ms, 2)}
        if abs(reply.first_event_ms - reply.ttft_ms) >= 0.005:
            record["first_event_ms"] = round(reply.first_event_ms, 2)
        if reply.cached_tokens is not None:
            record["cached_tokens"] = reply.cached_tokens
        if reply.outcome:
            record["outcome"] = reply.outcome
        if before is not None:
            after = client.counters()
            record["counters"] = {name.split(":")[1]: round(after.get(name, 0) - before.get(name, 0))
                                  for name in COUNTERS if name in after}
        if progress is not None:
            progress.update(1)
        return record

    pool = ThreadPoolExecutor(concurrency) if concurrency > 1 else None
    try:
        for number, (name, order) in enumerate(zip(pass_names(orders), orders), start=1):
            ids = list(range(docs)) if order == "fwd" else list(range(docs - 1, -1, -1))
            start = len(records)
            if pool is None:
                for doc in ids:
                    records.append(one(name, number, doc))
            else:  # up to N at a time, sent in the pass's order; the next pass waits for this one to end
                futures = [pool.submit(one, name, number, doc) for doc in ids]
                for future in futures:
                    record = future.result()
                    with lock:
                        records.append(record)
            if number == 1 and on_cold is not None:
                on_cold(records[start:])
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return records


def probe_times(client, model, tokens, max_tokens):
    """{"miss_ms", "hit_ms"}: a fresh document of `tokens` (a first word no run has sent) read twice, after the
    passes: what a miss and a hit take on this server now."""
    fresh = f"probe{random.SystemRandom().randrange(16 ** 8):08x}"
    text, exact = sized_document(client, model, 0, tokens, first=fresh)
    times = [client.stream({"model": model, "prompt": prompt_of(text, number, 0), "max_tokens": max_tokens,
                            "stream": True, "temperature": 0}, prompt_tokens=exact).ttft_ms for number in (1, 2)]
    return {"miss_ms": round(times[0], 2), "hit_ms": round(times[1], 2)}


def _passes(text):
    names = [name.strip() for name in text.split(",")]
    if not names or any(name not in ("fwd", "rev") for name in names):
        import argparse
        raise argparse.ArgumentTypeError(t("measure.bad-passes", passes=text))
    return tuple(names)


def add_arguments(parser):
    parser.add_argument("out", metavar="OUT", help=t("measure.out-help"))
    parser.add_argument("--base-url", default=BASE_URL, help=t("measure.base-url-help", default=BASE_URL))
    parser.add_argument("--model", help=t("measure.model-help"))
    parser.add_argument("--config", default=CONFIG, metavar="LABEL", help=t("measure.config-help", default=CONFIG))
    parser.add_argument("--docs", type=int, default=DOCS, help=t("measure.docs-help", default=DOCS))
    parser.add_argument("--tokens", type=int, default=TOKENS, help=t("measure.tokens-help", default=TOKENS))
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS,
                        help=t("measure.max-tokens-help", default=MAX_TOKENS))
    parser.add_argument("--passes", type=_passes, default=PASSES,
                        help=t("measure.passes-help", default=",".join(PASSES)))
    parser.add_argument("--warmup", type=int, default=WARMUP, metavar="N", help=t("measure.warmup-help", default=WARMUP))
    parser.add_argument("--concurrency", type=int, default=1, metavar="N", help=t("measure.concurrency-help"))
    parser.add_argument("--gpu-tokens", type=int, metavar="N", help=t("measure.gpu-tokens-help"))
    parser.add_argument("--cpu-tokens", type=int, metavar="N", help=t("measure.cpu-tokens-help"))
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help=t("measure.timeout-help", default=TIMEOUT))
    parser.add_argument("--allow-warm", action="store_true", help=t("measure.allow-warm-help"))
    parser.add_argument("--force", action="store_true", help=t("measure.force-help"))
    parser.add_argument("--append", action="store_true", help=t("measure.append-help"))


def _sizes(entry, args, doc_tokens):
    """(GPU tokens, CPU tokens) of the server: --gpu-tokens/--cpu-tokens, else what kvlab serve reports in
    /v1/models; None where nobody said."""
    reported = entry.get("kvlab") if isinstance(entry.get("kvlab"), dict) else {}
    gpu = args.gpu_tokens if args.gpu_tokens is not None else reported.get("gpu_tokens")
    cpu = args.cpu_tokens if args.cpu_tokens is not None else reported.get("cpu_tokens")
    return gpu, cpu


def run(args):
    try:
        import httpx  # noqa: F401
    except ModuleNotFoundError as error:
        raise UserError(t("measure.needs", name=error.name)) from None
    if not 1 <= args.docs <= len(FIRST_WORDS):
        raise UserError(t("measure.too-many-docs", docs=args.docs, most=len(FIRST_WORDS)))
    if (args.tokens < 1 or args.max_tokens < 1 or args.warmup < 0 or not args.timeout > 0 or not args.config
            or args.concurrency < 1 or any(size is not None and size < 0 for size in (args.gpu_tokens, args.cpu_tokens))):
        raise UserError(t("measure.bad-args"))
    before, kept = existing(args.out, args.config, args.force, args.append, args.docs, args.tokens, args.passes)
    settings_file = settings_path(args.out)
    old_settings = load_settings(args.out) if args.append and kept else None
    records, verdicts = [], {}
    client = Client(args.base_url, args.timeout)
    try:
        model, entry = client.model(args.model)
        endpoint = client.find_tokenizer(model)
        print(t("measure.tokenizer", endpoint=endpoint) if endpoint else t("measure.no-tokenizer"), flush=True)
        client.probe_usage(model)
        client.find_counters()
        if args.concurrency > 1:
            print(t("measure.concurrency", n=args.concurrency), flush=True)

        def on_cold(cold):  # the server's own word, at once: no need to wait for the other passes
            verdicts["server"] = cold_verdict(cold)
            if verdicts["server"]["warm_docs"] and not args.allow_warm:
                raise UserError(t("measure.warm", n=len(verdicts["server"]["warm_docs"]), total=len(cold),
                                  how=t("measure.warm-by-server"), docs=_doc_list(verdicts["server"]["warm_docs"])))

        progress = _progress(args.docs * len(args.passes), args.config)
        try:
            measure(client, model, args.config, args.docs, args.tokens, args.max_tokens, args.passes, args.warmup,
                    progress, args.concurrency, records, on_cold)
            if progress is not None:
                progress.close()
                progress = None
            cold = [record for record in records if record["pass"] == pass_names(args.passes)[0]]
            said = any(record.get("cached_tokens") is not None or record.get("outcome") for record in cold)
            probe = None if said else probe_times(client, model, args.tokens, args.max_tokens)  # no word: time it
        except KeyboardInterrupt:
            if progress is not None:
                progress.close()
                progress = None
            _keep_partial(args.out, records, args.force)
            raise
        finally:
            if progress is not None:
                progress.close()
    finally:
        client.close()
    verdict = cold_verdict(cold, probe)
    if verdict["warm_docs"] and not args.allow_warm:
        raise UserError(t("measure.warm", n=len(verdict["warm_docs"]), total=len(cold),
                          how=t("measure.warm-by-timing", threshold=verdict["threshold_ms"], hit=probe["hit_ms"],
                                miss=probe["miss_ms"]), docs=_doc_list(verdict["warm_docs"])))
    if not verdict["checked_by"]:
        print(t("measure.cold-unchecked"), flush=True)
    elif verdict["warm_docs"]:
        print(t("measure.warm-recorded", n=len(verdict["warm_docs"])), file=sys.stderr, flush=True)
    out = Path(args.out)
    now = out.read_bytes() if out.is_file() else None
    if now != before:  # OUT changed while we measured: somebody else's work
        raise UserError(t("measure.other-content", path=out))
    doc_tokens = max(record["doc_tokens"] for record in records)
    gpu, cpu = _sizes(entry, args, doc_tokens)
    this = {"base_url": client.root, "model": model, "tokenizer": endpoint, "gpu_tokens": gpu, "cpu_tokens": cpu,
            "context": client.context, "counters": client.has_counters,
            "cold": {**verdict, "probe": probe, "allowed_warm": bool(verdict["warm_docs"])},
            "recorded": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "requests": [{key: value for key, value in record.items() if key not in ("config", "doc_tokens", "ttft_ms",
                                                                                     "total_ms")} for record in records]}
    settings = _merged_settings(old_settings, args, doc_tokens, this)
    from .files import write_atomically
    lines = kept + [json.dumps({field: record[field] for field in FIELDS}) for record in records]
    write_atomically(settings_file, (json.dumps(settings, indent=1) + "\n").encode("utf-8"))
    write_atomically(out, ("\n".join(lines) + "\n").encode("utf-8"))
    print(t("measure.wrote", path=out, n=len(records), config=args.config))
    print(t("measure.wrote-settings", path=settings_file))
    return 0


def _merged_settings(old, args, doc_tokens, this):
    """The settings file: the run's own (documents, tokens, passes, warm-ups, TTFT's definition), and each config's."""
    configs = dict(old.get("configs", {})) if isinstance(old, dict) and isinstance(old.get("configs"), dict) else {}
    configs[args.config] = this
    return {"format": SETTINGS_FORMAT, "made_by": "kvlab measure", "docs": args.docs, "tokens": args.tokens,
            "doc_tokens": doc_tokens, "passes": list(pass_names(args.passes)), "orders": list(args.passes),
            "warmup": args.warmup, "warmup_kind": "separate-document", "max_tokens": args.max_tokens,
            "concurrency": args.concurrency, "ttft": TTFT_DEFINITION, "configs": configs}


def _doc_list(docs):
    return ", ".join(map(str, docs))


def _keep_partial(out, records, force):
    """Ctrl-C: the requests measured so far, whole, in their own clearly named file; one line says where."""
    if not records:
        print(t("measure.interrupted-nothing"), file=sys.stderr, flush=True)
        return
    from .files import write_atomically
    path = partial_path(out)
    lines = [json.dumps({field: record[field] for field in FIELDS}) for record in records]
    write_atomically(path, ("\n".join(lines) + "\n").encode("utf-8"))
    print(t("measure.interrupted", n=len(records), path=path, out=Path(out).name), file=sys.stderr, flush=True)


def _progress(total, config):
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:
        return None
    return tqdm(total=total, desc=t("measure.progress", config=config), unit="req", file=sys.stderr, disable=None,
                leave=False)
