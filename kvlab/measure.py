"""Record the lab's TTFT experiment against any OpenAI-compatible completions server, as the lab's JSONL.

    python -m kvlab measure --base-url http://127.0.0.1:8000 --config baseline ttft.jsonl
    python -m kvlab measure --base-url http://127.0.0.1:8001 --config lmcache --append ttft.jsonl

N synthetic documents of --tokens tokens each (their first words all differ, so no two share a cached
prefix), each followed by a short question that changes from pass to pass; the passes (default
fwd,fwd,rev: pass1-cold, pass2-replay, pass3-reverse) read them one request at a time, streaming. TTFT
is the time from sending a request to its first streamed token, total_ms to its last. Exact lengths come
from the server's tokenize endpoint (vLLM's /tokenize, else llama.cpp's /extras/tokenize); which one is
used is printed. OUT gets one line per request with exactly config, pass, doc, doc_tokens, ttft_ms and
total_ms, written whole or not at all, and never over other content without --force (--append adds the
lines to OUT's own). summarize.py reads the file when its configs are baseline and lmcache.
Needs httpx (and tqdm for the progress bar): pip install -e '.[measure]'.
"""
import json
import random
import sys
import time
from pathlib import Path

from . import lab
from .errors import UserError, visible
from .latency import MEASURED_TOKENS
from .i18n import t

BASE_URL, CONFIG, DOCS, TOKENS, MAX_TOKENS, PASSES, WARMUP, TIMEOUT = (
    "http://127.0.0.1:8000", "baseline", lab.DOCS, MEASURED_TOKENS, 16, lab.FWD_FWD_REV, 1, 120.0)
FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")
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


def document(doc, words):
    """Document `doc`'s text: its own first word, then `words` - 1 seeded filler words."""
    rng = random.Random(doc)
    return " ".join([FIRST_WORDS[doc]] + [rng.choice(FILLER) for _ in range(max(words - 1, 0))])


def question(number, doc):
    """The question after a document in pass `number` (1, 2, ...): it changes from pass to pass."""
    return f"Question {number}: in the text above, which word comes after word {number * 7 + doc}?"


def prompt_of(text, number, doc):
    return f"{text}\n\n{question(number, doc)}"


def pass_names(orders):
    from .latency import pass_names as names
    return names(orders)


class Client:
    """The HTTP side: one httpx.Client; every failure becomes a one-line UserError that says nothing was written."""

    def __init__(self, base_url, timeout):
        import httpx
        self.httpx = httpx
        self.root = base_url.rstrip("/").removesuffix("/v1")
        self.timeout = timeout
        self.http = httpx.Client(timeout=httpx.Timeout(timeout), trust_env=False)
        self.tokenizer = None

    def close(self):
        self.http.close()

    def _fail(self, url, error):
        httpx = self.httpx
        if isinstance(error, httpx.TimeoutException) and not isinstance(error, httpx.ConnectTimeout):
            return UserError(t("measure.timeout", url=url, timeout=self.timeout))
        if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
            return UserError(t("measure.unreachable", url=self.root, reason=visible(error or type(error).__name__, 200)))
        return UserError(t("measure.cut", url=url, reason=visible(error or type(error).__name__, 200)))

    def _status(self, url, response):
        body = response.read().decode("utf-8", "replace") if not response.is_closed else response.text
        return UserError(t("measure.status", url=url, status=response.status_code, body=visible(body.strip(), 200)))

    def request(self, method, path, **kwargs):
        url = self.root + path
        try:
            return self.http.request(method, url, **kwargs)
        except self.httpx.HTTPError as error:
            raise self._fail(url, error) from None

    def model(self):
        url = "/v1/models"
        response = self.request("GET", url)
        if response.status_code >= 400:
            raise self._status(self.root + url, response)
        try:
            return response.json()["data"][0]["id"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise UserError(t("measure.no-model", url=self.root + url)) from None

    def find_tokenizer(self, model):
        """The first tokenize endpoint that answers with tokens; None when neither does."""
        for path in TOKENIZERS:
            response = self.request("POST", path, json={"model": model, "prompt": "a b", "content": "a b",
                                                        "input": "a b"})
            if response.status_code < 400 and self._count(response) is not None:
                self.tokenizer = path
                return path
        return None

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

    def stream(self, payload):
        """(ttft_ms, total_ms) of one streamed completion; UserError when it fails or stops early."""
        url = self.root + "/v1/completions"
        first = last = None
        finished = False
        start = time.perf_counter()
        try:
            with self.http.stream("POST", url, json=payload) as response:
                if response.status_code >= 400:
                    raise self._status(url, response)
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
                        raise UserError(t("measure.status", url=url, status=response.status_code,
                                          body=visible(json.dumps(event["error"]), 200)))
                    choices = event.get("choices") if isinstance(event, dict) else None
                    if choices:
                        last = time.perf_counter()
                        first = last if first is None else first
                        finished = finished or bool(choices[0].get("finish_reason"))
        except self.httpx.HTTPError as error:
            raise self._fail(url, error) from None
        if first is None or not finished:
            raise UserError(t("measure.cut", url=url, reason="the stream ended before its last token"))
        return (first - start) * 1000, (last - start) * 1000


def sized_document(client, model, doc, want):
    """(text, exact tokens) of document `doc`, its word count adjusted until the tokenizer says `want`."""
    words, low, high, best = max(want, 1), 0, None, None
    for _ in range(24):
        text = document(doc, words)
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
        text = document(doc, 1)
        best = (text, client.count(model, text))
    if 0 < want - best[1] <= 16:  # words too coarse (e.g. one token per character): pad with full stops
        padded = best[0] + "." * (want - best[1])
        if client.count(model, padded) == want:
            return padded, want
    print(t("measure.inexact", doc=doc, got=best[1], want=want), flush=True)
    return best


def existing(path, config, force, append):
    """OUT's bytes now, and the lines to keep; refuses (before anything is sent) where the rules say so."""
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
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    try:
        same = [line for line in lines if json.loads(line).get("config") == config]
    except (ValueError, AttributeError):
        if not force:
            raise UserError(t("measure.other-content", path=path)) from None
        return data, []
    if same and not force:
        raise UserError(t("measure.same-config", path=path, config=config))
    return data, [line for line in lines if line not in same]


def measure(client, model, config, docs, tokens, max_tokens, orders, warmup, progress=None):
    """The records of one config, in read order."""
    texts = [sized_document(client, model, doc, tokens) for doc in range(docs)]
    for number in range(warmup):  # a short document of its own: it takes little room in any cache
        client.stream({"model": model, "prompt": f"warm up {number}\n\nHello?", "max_tokens": 1, "stream": True,
                       "temperature": 0})
    records = []
    for number, (name, order) in enumerate(zip(pass_names(orders), orders), start=1):
        for doc in (range(docs) if order == "fwd" else range(docs - 1, -1, -1)):
            text, exact = texts[doc]
            ttft, total = client.stream({"model": model, "prompt": prompt_of(text, number, doc),
                                         "max_tokens": max_tokens, "stream": True, "temperature": 0})
            records.append({"config": config, "pass": name, "doc": doc, "doc_tokens": exact,
                            "ttft_ms": round(ttft, 2), "total_ms": round(total, 2)})
            if progress is not None:
                progress.update(1)
    return records


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
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help=t("measure.timeout-help", default=TIMEOUT))
    parser.add_argument("--force", action="store_true", help=t("measure.force-help"))
    parser.add_argument("--append", action="store_true", help=t("measure.append-help"))


def run(args):
    try:
        import httpx  # noqa: F401
    except ModuleNotFoundError as error:
        raise UserError(t("measure.needs", name=error.name)) from None
    if not 1 <= args.docs <= len(FIRST_WORDS):
        raise UserError(t("measure.too-many-docs", docs=args.docs, most=len(FIRST_WORDS)))
    if args.tokens < 1 or args.max_tokens < 1 or args.warmup < 0 or not args.timeout > 0 or not args.config:
        raise UserError(t("measure.bad-args"))
    before, kept = existing(args.out, args.config, args.force, args.append)
    client = Client(args.base_url, args.timeout)
    try:
        model = args.model or client.model()
        endpoint = client.find_tokenizer(model)
        print(t("measure.tokenizer", endpoint=endpoint) if endpoint else t("measure.no-tokenizer"), flush=True)
        progress = _progress(args.docs * len(args.passes), args.config)
        try:
            records = measure(client, model, args.config, args.docs, args.tokens, args.max_tokens, args.passes,
                              args.warmup, progress)
        finally:
            if progress is not None:
                progress.close()
    finally:
        client.close()
    out = Path(args.out)
    now = out.read_bytes() if out.is_file() else None
    if now != before:  # OUT changed while we measured: somebody else's work
        raise UserError(t("measure.other-content", path=out))
    from .files import write_atomically
    lines = kept + [json.dumps({field: record[field] for field in FIELDS}) for record in records]
    write_atomically(out, ("\n".join(lines) + "\n").encode("utf-8"))
    print(t("measure.wrote", path=out, n=len(records), config=args.config))
    return 0


def _progress(total, config):
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:
        return None
    return tqdm(total=total, desc=t("measure.progress", config=config), unit="req", file=sys.stderr, disable=None,
                leave=False)
