"""Cases for the caches (steps 1 and 5, notebook 07's exercise): reads of keys with sizes, and what is seen.

A case is a list of reads on new caches: {"kind": "seq", "cls": "LRUCache", "caps": [5], "ops": [[0, "a",
3], ...]} (cache 0 reads "a", of size 3; kind "two" has two caches alive at once), or for the two tiers
{"kind": "tiers", "gpu": 6, "cpu": 9, "ops": [["a", 3], ...]}. After each read the student's process
reports what the lab text names: what access returned, keys(), used, `in` for every key read so far, and
keys() again (asking must not change the order); at the end whether keys() gives a new list each time,
and the hit and miss counters if the cache has them. A tier case reports each tier's keys().
Each key keeps one size, as each document does in the lab.
"""
from .base import by_size
from .outcomes import compared, op_results

KEYS = "abcdefghij"


# --- generating -------------------------------------------------------------------------------------

def _size(rng, capacity):
    """A new key's size: around the capacity's edges (0, exactly the capacity, one more) and in between."""
    choices = [1, 2, max(1, capacity // 2), max(1, capacity - 1), capacity, capacity + 1,
               rng.randint(1, capacity + 2), 0]
    weights = [4, 4, 4, 3, 2, 2, 4, 1]
    return rng.choices(choices, weights)[0]


def reads(rng, capacity, length, keys=KEYS, reuse=0.5):
    """[[key, size], ...]: `length` reads, a known key again with probability `reuse`."""
    sizes, out = {}, []
    for _ in range(length):
        if sizes and rng.random() < reuse:
            key = rng.choice(list(sizes))
        else:
            key = next((one for one in keys if one not in sizes), rng.choice(list(sizes) or list(keys)))
            sizes.setdefault(key, _size(rng, capacity))
        out.append([key, sizes[key]])
    return out


def seq_cases(rng, cls, count, lengths, two=0.0, capacities=(0, 1, 3, 4, 5, 6, 8, 9, 10), keys=KEYS):
    """`count` cases of one cache (or two, with probability `two`), read `lengths` (a range) times."""
    cases = []
    for _ in range(count):
        length = rng.randint(*lengths)
        if rng.random() < two:
            caps = [rng.choice(capacities), rng.choice(capacities)]
            ops = [[rng.randint(0, 1), key, size] for key, size in reads(rng, max(caps), length, keys)]
            kind = "two"
        else:
            caps = [rng.choice(capacities)]
            ops = [[0, key, size] for key, size in reads(rng, caps[0], length, keys)]
            kind = "seq"
        cases.append({"kind": kind, "cls": cls, "caps": caps, "ops": ops})
    return cases


def hit_then_evict(rng, cls, count, keys=KEYS):
    """Cases where a hit should save an entry from the next eviction: fill, read the oldest again, add one more,
    read them again (what tells LRU from FIFO, from evicting the newest, from asking that moves)."""
    cases = []
    for _ in range(count):
        size = rng.choice([1, 1, 2, 3])
        fill = rng.randint(2, 3)
        capacity = size * fill + rng.choice([0, 0, size - 1])
        names = list(keys[:fill + 1])
        order = names[:fill] + [names[0]] + [names[fill]] + rng.sample(names, len(names))
        cases.append({"kind": "seq", "cls": cls, "caps": [capacity], "ops": [[0, key, size] for key in order]})
    return cases


def tier_cases(rng, count, lengths, capacities=(0, 2, 3, 4, 5, 6, 8, 9), keys=KEYS):
    cases = []
    for _ in range(count):
        gpu, cpu = rng.choice(capacities), rng.choice(capacities)
        length = rng.randint(*lengths)
        cases.append({"kind": "tiers", "gpu": gpu, "cpu": cpu,
                      "ops": reads(rng, max(gpu, cpu), length, keys, reuse=0.6)})
    return cases


def size(case):
    """How big a case is to read: reads first, then capacities and sizes."""
    caps = case["caps"] if "caps" in case else [case["gpu"], case["cpu"]]
    return (len(case["ops"]), len(caps), sum(caps), sum(op[-1] for op in case["ops"]))


def ordered(cases):
    return by_size(cases, size)


# --- jobs and observations --------------------------------------------------------------------------

def seq_ops(case):
    """The driver's ops for a one- or two-cache case, and where each read's answers are among them."""
    ops = [["new", case["cls"], capacity] for capacity in case["caps"]]
    seen = [[] for _ in case["caps"]]
    places = []
    for cache, key, size in case["ops"]:
        target = f"#{cache}"
        if key not in seen[cache]:
            seen[cache].append(key)
        start = len(ops)
        ops += [["access", target, key, size], ["keys", target], ["used", target]]
        ops += [["in", target, one] for one in seen[cache]]
        ops.append(["keys", target])
        places.append((start, len(seen[cache])))
    for cache in range(len(case["caps"])):
        ops += [["fresh", f"#{cache}"], ["attr?", f"#{cache}", "hits"], ["attr?", f"#{cache}", "misses"]]
    return ops, places


def _keys(result):
    """keys() as reported: a list, or what it listed with its type when it is not a list (a view)."""
    if "listed" in result:
        return {"$type": result["listed"], "items": result.get("v")}
    return result.get("v")


def _used(result):
    return {"$method": result.get("v")} if result.get("callable") else result.get("v")


def observe_seq(case, outcome):
    """{"steps": [one dict per read], "fresh": [...], "counts": [...] or None, "stop": ...}."""
    ops, places = seq_ops(case)
    results, stop = op_results(outcome)
    if stop is not None and stop["stop"] == "raised":  # at which read it stopped (0-based), not which op
        stop["at"] = _read_at(stop["at"], places, len(case["caps"]))
    steps = []
    for start, known in places:
        end = start + 4 + known
        if len(results) < end:
            break
        got = results[start:end]
        steps.append({"ret": got[0].get("v"), "keys": _keys(got[1]), "used": _used(got[2]),
                      "in": [one.get("v") for one in got[3:3 + known]], "keys2": _keys(got[3 + known])})
    tail = results[places[-1][0] + 4 + places[-1][1]:] if places else results[len(case["caps"]):]
    fresh, counts = [], []
    for cache in range(len(case["caps"])):
        part = tail[3 * cache:3 * cache + 3]
        if len(part) == 3:
            fresh.append(part[0].get("v"))
            counts.append([part[1].get("v"), part[2].get("v")])
    has_counts = counts and all(not isinstance(value, dict) for pair in counts for value in pair)
    return {"steps": steps, "fresh": fresh, "counts": counts if has_counts else None,
            "stop": stop}


def _read_at(op_index, places, news):
    """The read (0-based) an op belongs to; -1 for the constructors, len(places) for the checks at the end."""
    if op_index < news:
        return -1
    for number, (start, known) in enumerate(places):
        if op_index < start + 4 + known:
            return number
    return len(places)


def tier_ops(case):
    ops = [["new", "TwoTierCache", case["gpu"], case["cpu"]], ["attr", "", "gpu"], ["attr", "", "cpu"]]
    for key, size in case["ops"]:
        ops += [["access", "", key, size], ["keys", "gpu"], ["keys", "cpu"]]
    return ops


def observe_tiers(case, outcome):
    """{"tiers": [gpu's type, cpu's type, two objects?], "steps": [{"ret", "gpu", "cpu"}], "stop"}."""
    results, stop = op_results(outcome)
    if stop is not None and stop["stop"] == "raised":
        stop["at"] = -1 if stop["at"] < 3 else (stop["at"] - 3) // 3
    tiers = None
    if len(results) >= 3:
        gpu, cpu = results[1].get("v"), results[2].get("v")
        kind = lambda value: value.get("$type") if isinstance(value, dict) else type(value).__name__  # noqa: E731
        ident = lambda value: value.get("$id") if isinstance(value, dict) else None  # noqa: E731
        tiers = [kind(gpu), kind(cpu), ident(gpu) != ident(cpu)]
    steps = []
    for number in range(len(case["ops"])):
        got = results[3 + 3 * number:6 + 3 * number]
        if len(got) < 3:
            break
        steps.append({"ret": got[0].get("v"), "gpu": _keys(got[1]), "cpu": _keys(got[2])})
    return {"tiers": tiers, "steps": steps, "stop": stop}


def per_read(name):
    """A rule's view: one field of every read, then how the run stopped (if it did)."""
    def view(case, obs):
        items = [step[name] for step in obs["steps"]]
        if obs.get("stop") is not None:
            items.append(compared(obs["stop"]))
        return items
    return view


def fresh_display(case, obs):
    """What a student reads of keys() called twice: {"$keys": [[its type, the same object both times?], ...]}
    (one per cache), or how the run stopped."""
    if obs.get("stop") is not None:
        return [obs.get("fresh"), compared(obs.get("stop"))]
    return {"$keys": obs.get("fresh") or []}


def whole(name):
    """A rule's view: one field of the whole observation, and how the run stopped."""
    def view(case, obs):
        return [obs.get(name), compared(obs.get("stop"))]
    return view


# --- shrinking ------------------------------------------------------------------------------------

def relabel(case):
    """The case with its keys renamed a, b, c, ... in the order they are first read (ints stay ints)."""
    names, ops = {}, []
    texts = all(isinstance(op[-2], str) for op in case["ops"])
    for op in case["ops"]:
        key = op[-2]
        if key not in names:
            names[key] = KEYS[len(names)] if texts and len(names) < len(KEYS) else key
        ops.append([*op[:-2], names[key], op[-1]])
    return {**case, "ops": ops}


def _with_ops(case, ops):
    return relabel({**case, "ops": ops})


def shrink(case):
    """Smaller cases, likeliest to still show a difference first: fewer reads, one cache, smaller numbers."""
    ops = case["ops"]
    for length in range(1, len(ops)):  # the first reads only
        yield _with_ops(case, ops[:length])
    for index in range(len(ops)):  # one read less
        yield _with_ops(case, ops[:index] + ops[index + 1:])
    sizes = {}
    for op in ops:
        sizes.setdefault(op[-2], op[-1])
    halved = {key: (value + 1) // 2 if value else 0 for key, value in sizes.items()}
    if any(value > 1 for value in sizes.values()):  # every number halved: the same story, told smaller
        smaller = {**case, "ops": [[*op[:-1], halved[op[-2]]] for op in ops]}
        if "caps" in case:
            yield {**smaller, "caps": [(cap + 1) // 2 for cap in case["caps"]]}
        else:
            yield {**smaller, "gpu": (case["gpu"] + 1) // 2, "cpu": (case["cpu"] + 1) // 2}
    keys = list(sizes)
    for later in keys[1:]:  # two keys read as one
        for earlier in keys[:keys.index(later)]:
            yield _with_ops(case, [[*op[:-2], earlier, sizes[earlier]] if op[-2] == later else op for op in ops])
    if case["kind"] == "two":
        for cache in (0, 1):
            yield relabel({"kind": "seq", "cls": case["cls"], "caps": [case["caps"][cache]],
                           "ops": [[0, key, size] for which, key, size in ops if which == cache]})
    for name in ("caps",) if "caps" in case else ("gpu", "cpu"):
        values = case[name] if name == "caps" else [case[name]]
        for index, value in enumerate(values):
            for smaller in sorted({1, value // 2, value - 1}):  # never down to 0: a 0 only comes from the cases
                if 1 <= smaller < value:
                    changed = list(values)
                    changed[index] = smaller
                    yield {**case, name: changed if name == "caps" else changed[0]}
    for key, value in sizes.items():
        for smaller in sorted({1, value // 2, value - 1}):
            if 1 <= smaller < value:
                yield {**case, "ops": [[*op[:-1], smaller if op[-2] == key else op[-1]] for op in ops]}


# --- showing -------------------------------------------------------------------------------------

def show(case):
    """The case as the code that makes it (code, never translated)."""
    if case["kind"] == "tiers":
        reads_ = ", ".join(f"access({key!r}, {size})" for key, size in case["ops"])
        return f"TwoTierCache({case['gpu']}, {case['cpu']})" + (f": {reads_}" if reads_ else "")
    if case["kind"] == "seq":
        reads_ = ", ".join(f"access({key!r}, {size})" for _, key, size in case["ops"])
        return f"{case['cls']}({case['caps'][0]})" + (f": {reads_}" if reads_ else "")
    made = ", ".join(f"c{index + 1} = {case['cls']}({cap})" for index, cap in enumerate(case["caps"]))
    reads_ = ", ".join(f"c{which + 1}.access({key!r}, {size})" for which, key, size in case["ops"])
    return f"{made}: {reads_}"


def read_label(case, index):
    """The read a view's item `index` is about, as code: "access('c', 2)" (with its cache when there are two)."""
    if index is None or index >= len(case["ops"]):
        return ""
    op = case["ops"][index]
    if case["kind"] == "two":
        return f"c{op[0] + 1}.access({op[1]!r}, {op[2]})"
    return f"access({op[-2]!r}, {op[-1]})"
