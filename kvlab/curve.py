"""Print a trace's block hit ratio at each capacity, exact for LRU from one pass over the trace.

    python -m kvlab curve fixtures/traces/conversation_trace.jsonl.gz --capacities 1000,10000,100000

TRACE is a Mooncake-format JSONL file (plain, or gzip when its name ends in .gz): one request per line
with timestamp, input_length, output_length and hash_ids, one id per 512-token block of the prompt.
Each request's blocks are read in order, one block at a time, through a cache whose capacity counts
blocks. Stdout is one JSON object: {"CAPACITY": hit ratio, ...}, where the hit ratio is block hits
divided by block accesses (all blocks of all requests, the first reads of a block included), rounded
to 4 decimals. With --tiers GPU_BLOCKS the capacities are CPU capacities behind a GPU tier of
GPU_BLOCKS blocks (lab step 5's rules), and a hit is a GPU hit or a CPU hit: (GPU hits + CPU hits)
divided by block accesses.

As a module, kvlab.curve computes LRU hit counts at every capacity in one pass (lru_curve), for two
tiers (two_tier_curve), and by brute-force simulation for any policy (sweep).
"""
import argparse
import json
import sys
from bisect import bisect_left, bisect_right
from collections import Counter

from .errors import UserError

POLICIES = ("lru", "fifo", "lfu", "mru", "arc", "opt")


class Fenwick:
    """Sums of positions 1 ... i of a list that changes (a binary indexed tree): both in O(log n)."""

    def __init__(self, n):
        self._tree = [0] * (n + 1)  # _tree[i] holds the sum of the (i & -i) positions that end at i

    def add(self, position, value):
        """Add `value` at `position` (1 ... n)."""
        tree, end = self._tree, len(self._tree)
        while position < end:
            tree[position] += value
            position += position & -position  # the next range that covers `position`

    def prefix(self, position):
        """The sum of positions 1 ... `position`."""
        tree = self._tree
        total = 0
        while position > 0:
            total += tree[position]
            position -= position & -position  # the range just before this one
        return total


def sizes_of(trace):
    """{key: size}; a key read with two sizes, or a size that is not a whole number >= 0, is a ValueError."""
    sizes = {}
    for key, size in trace:
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValueError(f"size must be a whole number >= 0, got {size!r}")
        if sizes.setdefault(key, size) != size:
            raise ValueError(f"key {key!r} is read with two sizes, {sizes[key]} and {size}")
    return sizes


def stack_distances(trace):
    """For each read of `trace`, its stack distance: its size plus the sizes of the distinct keys read
    since its key's previous read; None for a first read.

    An LRU cache that can store every entry of the trace always holds the most recently read keys, as
    many as fit, so it hits exactly the reads whose distance is at most its capacity. The distinct
    keys read since position p are all the reads since p minus the re-reads among them, the reads
    whose own previous read came after p too. A Fenwick tree holds, at each position p, the sizes of
    the re-reads whose previous read was at p; the re-reads after p are its total minus its sum up to
    p. O(N log N) for N reads.
    """
    rereads = Fenwick(len(trace))
    reread = 0      # the total of `rereads`
    read = 0        # the sizes of all reads so far
    latest = {}     # key -> (position of its latest read, `read` just after that read)
    distances = []
    for now, (key, size) in enumerate(trace, start=1):
        if key in latest:
            before, read_then = latest[key]
            distances.append(size + (read - read_then) - (reread - rereads.prefix(before)))
            rereads.add(before, size)
            reread += size
        else:
            distances.append(None)
        read += size
        latest[key] = (now, read)
    return distances


def hit_intervals(trace):
    """Where the reads of `trace` hit in an LRU cache: (position, low, high) for every read and range
    of capacities [low, high) at which it hits (high None: no end). A first read never hits.

    An LRU cache of capacity C never stores an entry larger than C and evicts nothing for it, so at C
    the trace behaves exactly as if the reads of such entries were not there, and the rest all fit.
    With sizes s_1 < s_2 < ... those are the same reads for every C in [s_j, s_{j+1}): there, a read
    hits from max(s_j, its stack distance in the trace without the sizes above s_j) on. One pass per
    distinct size: O(N m log N) for m sizes (m is 1 for the lab and for block traces). With unequal
    sizes a read can hit at C and miss at a larger C, where a big entry between its reads now fits.
    """
    sizes = sizes_of(trace)
    classes = sorted(set(sizes.values()))
    found = []
    for j, limit in enumerate(classes):
        end = classes[j + 1] if j + 1 < len(classes) else None  # capacities [limit, end) keep the same reads
        if end is None:  # from the largest size on, every read stays
            kept, reads = range(len(trace)), trace
        else:
            kept = [position for position, (_, size) in enumerate(trace) if size <= limit]
            reads = [trace[position] for position in kept]
        for position, distance in zip(kept, stack_distances(reads)):
            if distance is None:
                continue  # a first read
            low = max(limit, distance)
            if end is None or low < end:
                found.append((position, low, end))
    return found


def _hits_at(interval, capacity):
    _, low, high = interval
    return low <= capacity and (high is None or capacity < high)


class HitCurve:
    """Hits at every capacity: a step function that changes only at `capacities`.

    hits(c) (or curve(c)) is the number of hits of an LRU cache of capacity c; from capacities[i]
    up to capacities[i + 1] it is counts[i], and 0 below capacities[0].
    """

    def __init__(self, changes, accesses):
        self.accesses = accesses  # how many accesses were counted: hits(c) / accesses is the hit ratio
        self.capacities = []
        self.counts = []
        hits = 0
        for capacity in sorted(changes):
            if changes[capacity]:  # +1 and -1 at the same capacity cancel: no step there
                hits += changes[capacity]
                self.capacities.append(capacity)
                self.counts.append(hits)

    def hits(self, capacity):
        """Hits of a cache of this capacity."""
        if capacity < 0:
            raise ValueError(f"capacity < 0: {capacity}")
        i = bisect_right(self.capacities, capacity)
        return self.counts[i - 1] if i else 0

    __call__ = hits

    def hit_ratio(self, capacity):
        """Hits over accesses (0 for no accesses)."""
        return self.hits(capacity) / self.accesses if self.accesses else 0.0

    def steps(self, stop):
        """(capacities, hits) from 0 to `stop`, for ax.step(..., where="post")."""
        xs = [0] + [c for c in self.capacities if 0 < c <= stop] + [stop]
        return xs, [self.hits(x) for x in xs]

    def __repr__(self):
        top = self.counts[-1] if self.counts else 0
        return f"HitCurve(accesses={self.accesses}, steps={len(self.capacities)}, most_hits={top})"


def lru_curve(trace, start=0, stop=None):
    """LRU hits at every capacity, counting the hits of trace[start:stop] (the cache reads all of it)."""
    trace = list(trace)
    counted = range(len(trace))[start:stop]
    changes = Counter()
    for position, low, high in hit_intervals(trace):
        if position in counted:
            changes[low] += 1
            if high is not None:
                changes[high] -= 1
    return HitCurve(changes, len(counted))


class TwoTierCurve:
    """Hits of a GPU tier of fixed capacity in front of a CPU tier, at every CPU capacity (step 5's rules).

    The GPU tier reads every access, so it is an LRU cache of the trace. Each GPU miss makes exactly
    one read of the CPU tier and nothing else does, so the CPU tier is an LRU cache of the GPU's misses.
    """

    def __init__(self, gpu_capacity, gpu_hits, cpu, accesses):
        self.gpu_capacity = gpu_capacity
        self.gpu_hits = gpu_hits  # the same at every CPU capacity
        self.cpu = cpu            # HitCurve of the CPU tier over the GPU's misses
        self.accesses = accesses

    def hits(self, cpu_capacity):
        """GPU hits plus CPU hits at this CPU capacity."""
        return self.gpu_hits + self.cpu.hits(cpu_capacity)

    __call__ = hits

    def misses(self, cpu_capacity):
        return self.accesses - self.hits(cpu_capacity)

    def hit_ratio(self, cpu_capacity):
        return self.hits(cpu_capacity) / self.accesses if self.accesses else 0.0

    def __repr__(self):
        return (f"TwoTierCurve(gpu_capacity={self.gpu_capacity}, gpu_hits={self.gpu_hits}, "
                f"cpu={self.cpu!r}, accesses={self.accesses})")


def two_tier_curve(trace, gpu_capacity, start=0, stop=None):
    """GPU + CPU hits at every CPU capacity behind a GPU of `gpu_capacity`, counting trace[start:stop]."""
    trace = list(trace)
    counted = range(len(trace))[start:stop]
    gpu_hit_positions = {interval[0] for interval in hit_intervals(trace) if _hits_at(interval, gpu_capacity)}
    gpu_hits = sum(position in gpu_hit_positions for position in counted)
    miss_positions = [position for position in range(len(trace)) if position not in gpu_hit_positions]
    misses = [trace[position] for position in miss_positions]  # all that the CPU tier reads
    # The counted accesses are one run of positions, so their misses are one run of the CPU's reads.
    cpu = lru_curve(misses, bisect_left(miss_positions, counted.start), bisect_left(miss_positions, counted.stop))
    return TwoTierCurve(gpu_capacity, gpu_hits, cpu, len(counted))


def first_capacity(holds, low, high):
    """The smallest capacity in [low, high] for which `holds(capacity)` is true, by binary search.

    `holds` must be monotone (false, ..., false, true, ..., true); None if it never holds.
    """
    if not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def sweep(trace, make, capacities, start=0, stop=None):
    """{capacity: hits of trace[start:stop]}, simulating a fresh make(capacity) cache per capacity.

    The brute force, for any cache whose access(key, size) returns True on a hit.
    """
    trace = list(trace)
    counted = range(len(trace))[start:stop]
    hits = {}
    for capacity in capacities:
        cache = make(capacity)
        hits[capacity] = sum(cache.access(key, size) is True and position in counted
                             for position, (key, size) in enumerate(trace))
    return hits


def policy_cache(policy, capacity, trace):
    """A cache of `policy` (one of POLICIES except lru) and `capacity`; OPT is built from the trace it will read."""
    from . import policies  # here, not at the top: it imports the student's kvsim.py

    if policy == "opt":
        return policies.BeladyCache(capacity, trace)
    classes = {"fifo": policies.FIFOCache, "lfu": policies.LFUCache, "mru": policies.MRUCache,
               "arc": policies.ARCCache}
    if policy not in classes:
        raise ValueError(f"unknown policy {policy!r} (expected one of {', '.join(POLICIES[1:])})")
    return classes[policy](capacity)


def policy_hits(trace, policy, capacities, gpu=None):
    """{capacity: hits} for a policy: exact from one pass for LRU, simulated for the others.

    With `gpu` (a GPU capacity), the capacities are CPU capacities and the hits are GPU + CPU hits of
    two tiers of that policy. The GPU tier does not depend on the CPU tier, so it runs once; the CPU
    tier of each capacity then reads the GPU's misses (for OPT, those misses are its future).
    """
    trace = list(trace)
    if policy == "lru":
        curve = lru_curve(trace) if gpu is None else two_tier_curve(trace, gpu)
        return {capacity: curve.hits(capacity) for capacity in capacities}
    if gpu is None:
        return sweep(trace, lambda capacity: policy_cache(policy, capacity, trace), capacities)
    cache = policy_cache(policy, gpu, trace)
    misses = [(key, size) for key, size in trace if not cache.access(key, size)]
    gpu_hits = len(trace) - len(misses)
    cpu_hits = sweep(misses, lambda capacity: policy_cache(policy, capacity, misses), capacities)
    return {capacity: gpu_hits + cpu_hits[capacity] for capacity in capacities}


def _capacities(text):
    values = []
    for part in text.split(","):
        try:
            value = int(part.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not a whole number of blocks") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"capacity {value} is below 0")
        values.append(value)
    return values


def add_arguments(parser):
    parser.add_argument("trace", help="Mooncake-format JSONL file (gzip if the name ends in .gz)")
    parser.add_argument("--capacities", type=_capacities, required=True,
                        help="comma-separated cache capacities in blocks of 512 tokens, e.g. 1000,10000")
    parser.add_argument("--policy", choices=POLICIES, default="lru",
                        help="eviction policy (default lru: exact, from one pass; the others are simulated "
                             "once per capacity)")
    parser.add_argument("--tiers", type=_capacities, metavar="GPU_BLOCKS",
                        help="a GPU tier of GPU_BLOCKS blocks in front (both tiers use --policy): the "
                             "capacities are then CPU capacities, and the ratio is (GPU hits + CPU hits) / "
                             "block accesses")


def run(args):
    from . import workloads

    if args.tiers is not None and len(args.tiers) != 1:
        raise UserError(f"--tiers takes one GPU capacity in blocks, got {len(args.tiers)}")
    try:
        trace = workloads.read_mooncake(args.trace)
    except workloads.TraceError as error:
        raise UserError(str(error)) from None
    if not trace:
        raise UserError(f"{args.trace}: no blocks (every request has input_length 0)")
    gpu = args.tiers[0] if args.tiers else None
    hits = policy_hits(trace, args.policy, args.capacities, gpu)
    ratios = {str(capacity): round(hits[capacity] / len(trace), 4) for capacity in args.capacities}
    sys.stdout.write(json.dumps(ratios) + "\n")
