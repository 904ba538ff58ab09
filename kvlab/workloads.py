"""Traces to run through a cache: the lab's passes, seeded random workloads, and Mooncake request traces.

A trace is a list of (key, size) accesses, read in order. The generators are deterministic for a
given seed. read_mooncake() turns a Mooncake-format JSONL file (plain or .gz) into a block trace:
each request's blocks in order, one access of size 1 per block, so capacities count blocks.
Standard library only.
"""
import gzip
import json
import random
import zlib
from collections import namedtuple

BLOCK_TOKENS = 512  # a Mooncake hash id stands for one block of 512 prompt tokens
MOONCAKE_FIELDS = ("timestamp", "input_length", "output_length", "hash_ids")

Request = namedtuple("Request", MOONCAKE_FIELDS)
TraceStats = namedtuple("TraceStats", "requests mean_input mean_output blocks distinct_blocks "
                                      "reused_blocks reused_tokens input_tokens")


class TraceError(ValueError):
    """A trace file that cannot be read as requests; the message names the file and the line."""


def read_order(order, docs):
    """Document ids in the order a pass reads them: "fwd" 0 upward, "rev" downward.

    scenario.read_order's twin: scenario.py is the student's file, which the workloads must not depend on.
    """
    if order == "fwd":
        return list(range(docs))
    if order == "rev":
        return list(reversed(range(docs)))
    raise ValueError(f"unknown pass {order!r} (expected fwd or rev)")


def cyclic(docs=10, tokens=5011, passes=("fwd", "fwd")):
    """The lab's workload: every pass reads documents 0 ... docs-1 (fwd) or back (rev), each of `tokens`."""
    return [(doc, tokens) for order in passes for doc in read_order(order, docs)]


def random_order(docs=10, tokens=5011, passes=2, seed=0):
    """Every pass reads every document once, each pass in a fresh random order."""
    rng = random.Random(seed)
    trace = []
    for _ in range(passes):
        order = list(range(docs))
        rng.shuffle(order)
        trace += [(doc, tokens) for doc in order]
    return trace


def zipf(docs=1000, tokens=1, accesses=10_000, alpha=1.0, seed=0):
    """`accesses` reads of documents drawn independently; document k has weight 1 / (k + 1) ** alpha.

    alpha 0 is uniform; the larger alpha, the more the reads pile onto the first few documents.
    """
    rng = random.Random(seed)
    weights = [1 / (doc + 1) ** alpha for doc in range(docs)]
    return [(doc, tokens) for doc in rng.choices(range(docs), weights, k=accesses)]


def round_robin(*traces):
    """Interleave traces one access at a time (a trace that runs out drops out): users sharing a cache."""
    merged = []
    for turn in range(max((len(trace) for trace in traces), default=0)):
        merged += [trace[turn] for trace in traces if turn < len(trace)]
    return merged


def users(count=2, docs=10, tokens=5011, passes=("fwd", "fwd")):
    """`count` users, each reading its own documents cyclically, sharing one cache in turn.

    Keys are (user, doc), so no two users ever share a document.
    """
    return round_robin(*([((user, doc), size) for doc, size in cyclic(docs, tokens, passes)]
                         for user in range(count)))


def parse_request(text):
    """One line of a Mooncake trace to a Request; raises ValueError saying what is wrong with it."""
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise ValueError(f"not valid JSON ({getattr(error, 'msg', error)})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    missing = [field for field in MOONCAKE_FIELDS if field not in record]
    if missing:
        raise ValueError(f"missing field {', '.join(missing)}")
    for field in ("input_length", "output_length"):
        if not _is_int(record[field]) or record[field] < 0:
            raise ValueError(f"{field} must be a whole number >= 0, got {record[field]!r}")
    timestamp = record["timestamp"]
    if isinstance(timestamp, bool) or not isinstance(timestamp, (int, float)):
        raise ValueError(f"timestamp must be a number, got {timestamp!r}")
    hash_ids = record["hash_ids"]
    if not isinstance(hash_ids, list) or not all(_is_int(block) for block in hash_ids):
        raise ValueError("hash_ids must be a list of whole numbers")
    blocks = -(-record["input_length"] // BLOCK_TOKENS)  # the last block may be partial
    if len(hash_ids) != blocks:
        raise ValueError(f"{len(hash_ids)} hash_ids for input_length {record['input_length']} "
                         f"(one per {BLOCK_TOKENS}-token block: {blocks})")
    return Request(timestamp, record["input_length"], record["output_length"], hash_ids)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def read_requests(path):
    """The requests of a Mooncake JSONL file (gzip if its name ends in .gz); blank lines are skipped.

    Raises TraceError naming the file and the line number.
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    requests = []
    number = 0
    try:
        with opener(path, "rb") as file:
            for number, raw in enumerate(file, start=1):
                line = raw.decode("utf-8")
                if line.strip():
                    requests.append(parse_request(line))
    except UnicodeDecodeError as error:
        raise TraceError(f"{path}, line {number}: not UTF-8 text ({error.reason})") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:  # not gzip, cut short, or damaged
        raise TraceError(f"{path}: not a readable gzip file ({error})") from None
    except ValueError as error:
        raise TraceError(f"{path}, line {number}: {error}") from None
    if not requests:
        raise TraceError(f"{path}: no requests (the file is empty or only blank lines)")
    return requests


def blocks(requests):
    """The block trace of some requests: each request's hash ids in order, as (id, 1) accesses."""
    return [(block, 1) for request in requests for block in request.hash_ids]


def read_mooncake(path):
    """The block trace of a Mooncake JSONL file (see read_requests and blocks)."""
    return blocks(read_requests(path))


def trace_stats(requests):
    """What the Mooncake paper's Table 2 reports, and the share of the prompt a cache could reuse.

    A block is reused when its id was read before, by any earlier request: what a prefix cache with
    room for everything, kept forever, would hit. reused_tokens weighs each block by its tokens
    (512, the last block of a prompt only what is left of input_length).
    """
    seen = set()
    reused_blocks = reused_tokens = 0
    for request in requests:
        for index, block in enumerate(request.hash_ids):
            if block in seen:
                reused_blocks += 1
                reused_tokens += min(BLOCK_TOKENS, request.input_length - index * BLOCK_TOKENS)
            seen.add(block)
    count = len(requests)
    input_tokens = sum(request.input_length for request in requests)
    return TraceStats(
        requests=count,
        mean_input=input_tokens / count,
        mean_output=sum(request.output_length for request in requests) / count,
        blocks=sum(len(request.hash_ids) for request in requests),
        distinct_blocks=len(seen),
        reused_blocks=reused_blocks,
        reused_tokens=reused_tokens,
        input_tokens=input_tokens,
    )
