"""A SIMULATED OpenAI-compatible server on 127.0.0.1 (no model, no GPU): TTFTs from the simulator and a latency model.

    python -m kvlab serve --cpu 0       # the baseline: a GPU tier only
    python -m kvlab serve --cpu 56000   # lmcache: the same GPU tier with a CPU tier behind it

It answers /v1/models, /v1/completions (streaming or not) and /tokenize (vLLM's form: exact counts). A
token is a whitespace-separated word. A prompt's document is its text before the last blank line, the
question the rest: the document is the cache's key and its word count the entry's size. Each request is
read through one kvlab.kvsim.TwoTierCache(--gpu, --cpu); the server then sleeps the TTFT the latency
model predicts for that outcome, and streams the answer's tokens at the model's decode pace. Every
sleep is divided by --speed. The response header x-kvlab-outcome says gpu, cpu or miss, and the usage
says the cached tokens as vLLM does (prompt_tokens_details.cached_tokens; streamed with
stream_options.include_usage). /v1/models also gives the GPU and CPU sizes, which kvlab measure records.
A model name other than kvlab-simulation is refused (404), as vLLM refuses one it does not serve.
Needs starlette and uvicorn: pip install -e '.[serve]'.
"""
import asyncio
import json
import socket
import sys
import time
import zlib

from . import lab
from .errors import UserError
from .i18n import t

MODEL = "kvlab-simulation"
GPU, CPU, PORT = lab.GPU, 0, 8000
SEPARATOR = "\n\n"
CONTEXT = 1 << 20       # tokens a prompt may have


def split_prompt(prompt):
    """(document, question) of a prompt: the text before its last blank line, and the rest."""
    document, found, question = prompt.rpartition(SEPARATOR)
    return (document, question) if found else (prompt, "")


def tokens_of(text):
    """The simulation's tokens: whitespace-separated words."""
    return text.split()


class Simulation:
    """The two-tier cache and the latency model behind the server; one request at a time updates it."""

    def __init__(self, gpu, cpu, model, speed=1.0):
        from .kvsim import TwoTierCache
        self.gpu, self.cpu = gpu, cpu
        try:
            TwoTierCache(gpu, cpu).access("probe", 0)  # a stub not written yet raises here, not per request
        except NotImplementedError as error:
            raise UserError(t("latency.no-simulator", reason=error)) from None
        self.tiers = TwoTierCache(gpu_capacity=gpu, cpu_capacity=cpu)
        self.cpu_tier = cpu > 0
        self.model, self.speed = model, speed

    def read(self, prompt):
        """(outcome, TTFT in s after --speed, prompt tokens, cached tokens) for one prompt."""
        document, question = split_prompt(prompt)
        size, asked = len(tokens_of(document)), len(tokens_of(question))
        outcome = self.tiers.access(document, size)  # one entry per document, keyed by its text
        seconds = self.model.ttft_ms(outcome, size, self.cpu_tier, question_tokens=asked) / 1000 / self.speed
        return outcome, max(seconds, 0.0), size + asked, 0 if outcome == "miss" else size

    def decode_seconds(self):
        return max(self.model.decode_ms_per_token, 0.0) / 1000 / self.speed


def make_app(simulation):
    """The Starlette application over a Simulation."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    lock = asyncio.Lock()

    def error(status, message):
        return JSONResponse({"error": {"message": message, "type": "invalid_request_error", "code": status}},
                            status_code=status)

    async def body_of(request):
        try:
            body = json.loads(await request.body())
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def prompt_of(body):
        prompt = body.get("prompt")
        if isinstance(prompt, list) and len(prompt) == 1:
            prompt = prompt[0]
        if isinstance(prompt, list) and all(isinstance(token, int) for token in prompt):
            prompt = " ".join(f"t{token}" for token in prompt)  # token ids: one word each
        return prompt if isinstance(prompt, str) else None

    async def models(request):
        return JSONResponse({"object": "list", "data": [
            {"id": MODEL, "object": "model", "created": 0, "owned_by": "kvlab (a simulation, not a model)",
             "max_model_len": CONTEXT, "kvlab": {"gpu_tokens": simulation.gpu, "cpu_tokens": simulation.cpu}}]})

    async def tokenize(request):
        body = await body_of(request)
        prompt = None if body is None else prompt_of(body)
        if prompt is None:
            return error(400, "the body must be JSON with a string prompt")
        ids = [zlib.crc32(word.encode()) % 32000 for word in tokens_of(prompt)]
        return JSONResponse({"count": len(ids), "max_model_len": CONTEXT, "tokens": ids})

    async def completions(request):
        body = await body_of(request)
        prompt = None if body is None else prompt_of(body)
        if prompt is None:
            return error(400, "the body must be JSON with a string prompt")
        if body.get("model") not in (None, MODEL):  # as vLLM: a model it does not serve is refused
            return error(404, f"The model `{body.get('model')}` does not exist.")
        max_tokens = body.get("max_tokens", 16)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            return error(400, "max_tokens must be a whole number >= 1")
        async with lock:  # one request at a time through the cache, in arrival order
            outcome, ttft, prompt_tokens, cached = simulation.read(prompt)
        ident, created, step = f"cmpl-kvlab-{time.monotonic_ns()}", int(time.time()), simulation.decode_seconds()
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": max_tokens,
                 "total_tokens": prompt_tokens + max_tokens, "prompt_tokens_details": {"cached_tokens": cached}}
        options = body.get("stream_options")
        with_usage = isinstance(options, dict) and options.get("include_usage") is True
        headers = {"x-kvlab-outcome": outcome}

        def chunk(text, finish):
            return {"id": ident, "object": "text_completion", "created": created, "model": MODEL,
                    "choices": [{"index": 0, "text": text, "logprobs": None, "finish_reason": finish}]}

        if not body.get("stream"):
            await asyncio.sleep(ttft + step * (max_tokens - 1))
            answer = chunk(" ".join(["tok"] * max_tokens), "length")
            return JSONResponse({**answer, "usage": usage}, headers=headers)

        async def events():
            await asyncio.sleep(ttft)
            for index in range(max_tokens):
                if index:
                    await asyncio.sleep(step)
                last = index == max_tokens - 1
                yield f"data: {json.dumps(chunk(' tok', 'length' if last else None))}\n\n"
            if with_usage:  # OpenAI's (and vLLM's) last chunk: no choices, the usage
                yield f"data: {json.dumps({**chunk('', None), 'choices': [], 'usage': usage})}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    return Starlette(routes=[Route("/v1/models", models), Route("/tokenize", tokenize, methods=["POST"]),
                             Route("/v1/completions", completions, methods=["POST"])])


def add_arguments(parser):
    parser.add_argument("--gpu", type=int, default=GPU, help=t("serve.gpu-help", default=GPU))
    parser.add_argument("--cpu", type=int, default=CPU, help=t("serve.cpu-help", default=CPU))
    parser.add_argument("--port", type=int, default=PORT, help=t("serve.port-help", default=PORT))
    parser.add_argument("--speed", type=float, default=1.0, help=t("serve.speed-help"))
    parser.add_argument("--latency", metavar="MODEL.json", help=t("serve.latency-help"))


def run(args):
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ModuleNotFoundError as error:
        raise UserError(t("serve.needs", name=error.name)) from None
    from . import latency
    if args.gpu < 0 or args.cpu < 0 or not args.speed > 0:
        raise UserError(t("serve.bad-args"))
    model = latency.load_model(args.latency) if args.latency else latency.stand_in_model()
    app = make_app(Simulation(args.gpu, args.cpu, model, args.speed))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it: no 40 ms stalls
    listener.bind(("127.0.0.1", args.port))  # loopback only: nothing else should reach a simulation
    listener.listen(128)
    port = listener.getsockname()[1]
    print(t("serve.started", url=f"http://127.0.0.1:{port}", model=MODEL, gpu=args.gpu, cpu=args.cpu,
            speed=args.speed), flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
    server.run(sockets=[listener])
    sys.stdout.flush()
    return 0
