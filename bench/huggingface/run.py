"""Hugging Face models on the CPU: eager PyTorch, torch.compile (Inductor)
and torch.compile(backend="xpu_opt"), measured in one run:

    .venv/bin/python bench/huggingface/run.py [--models=gpt2,bert,llama]
        [--batch=2] [--length=128] [--layers=2] [--hidden=512]
        [--vocab=1024] [--repeat=10] [--warmup=2] [--threads=1]

Each model (GPT-2, BERT, a Llama-style decoder) is built from a config
with random weights (nothing is downloaded; HF_HUB_OFFLINE=1). Every peer
runs the same model object on the same token ids. A row gives the median
time of --repeat forwards after --warmup (the first call of a compiled
model compiles and is not timed), tokens/s (batch x length / time), the
relative L2 error of the logits against eager f32 and a check: rows over
--tolerance (1e-4) fail, and the script then exits with status 1. A peer
that cannot run here (Inductor without a C++ compiler, say) is a row that
says why, not a missing row.

PyTorch runs on --threads threads (1 by default: xpu_opt's CPU code runs
on one thread, so all peers get one core).
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
import transformers  # noqa: E402

import xpu_opt  # noqa: E402

transformers.logging.set_verbosity_error()


def make(name, layers, hidden, vocab):
    """A model of the family `name` from a config: `layers` blocks of
    width `hidden` (heads of 64), a vocabulary of `vocab` tokens, random
    weights, eval mode."""
    heads = max(hidden // 64, 1)
    if name == "gpt2":
        config = transformers.GPT2Config(
            n_layer=layers, n_embd=hidden, n_head=heads, vocab_size=vocab,
            n_positions=512, bos_token_id=0, eos_token_id=0)
        model = transformers.GPT2LMHeadModel(config)
    elif name == "bert":
        config = transformers.BertConfig(
            num_hidden_layers=layers, hidden_size=hidden,
            num_attention_heads=heads, intermediate_size=4 * hidden,
            vocab_size=vocab, max_position_embeddings=512)
        model = transformers.BertForMaskedLM(config)
    elif name == "llama":
        config = transformers.LlamaConfig(
            num_hidden_layers=layers, hidden_size=hidden,
            num_attention_heads=heads, num_key_value_heads=max(heads // 2, 1),
            intermediate_size=(8 * hidden) // 3, vocab_size=vocab,
            max_position_embeddings=512, bos_token_id=0, eos_token_id=0)
        model = transformers.LlamaForCausalLM(config)
    else:
        raise SystemExit(f"unknown model {name!r} (gpt2, bert or llama)")
    return model.eval()


def relative_l2(got, want):
    return ((got.double() - want.double()).norm() /
            want.double().norm()).item()


def measure(fn, ids, warmup, repeat):
    """(logits of the first call, seconds of the first call, median ms of
    `repeat` calls after `warmup` more)."""
    with torch.no_grad():
        start = time.perf_counter()
        out = fn(input_ids=ids).logits
        first = time.perf_counter() - start
        for _ in range(warmup):
            fn(input_ids=ids)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn(input_ids=ids)
            times.append(time.perf_counter() - start)
    return out, first, statistics.median(times) * 1e3


def first_line(error):
    text = f"{type(error).__name__}: {error}".strip().splitlines()
    # A "|" would split the Markdown table's cell.
    return text[0][:100].replace("|", "/") if text else type(error).__name__


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="gpt2,bert,llama")
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--length", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--vocab", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--tolerance", type=float, default=1e-4)
    args = p.parse_args()

    torch.set_num_threads(args.threads)
    tokens = args.batch * args.length
    print(f"torch {torch.__version__}, transformers "
          f"{transformers.__version__}, {args.threads} thread(s); "
          f"ids {args.batch}x{args.length}, {args.layers} layers, hidden "
          f"{args.hidden}, vocabulary {args.vocab}; median of {args.repeat} after {args.warmup} "
          "warm-up calls")
    header = (f"| model | peer | ms/forward | tokens/s | vs eager | "
              f"rel. L2 vs eager f32 | check | first call s |")
    rows = [header, "|---|---|---|---|---|---|---|---|"]
    failed = False
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = make(name, args.layers, args.hidden, args.vocab)
        ids = torch.randint(0, args.vocab, (args.batch, args.length),
                            generator=torch.Generator().manual_seed(1))
        want, first, eager_ms = measure(model, ids, args.warmup, args.repeat)
        rows.append(f"| {name} | eager | {eager_ms:.2f} | "
                    f"{tokens / eager_ms * 1e3:.0f} | 1.00x | 0 | ok | "
                    f"{first:.2f} |")
        peers = [("inductor", lambda m: torch.compile(m)),
                 ("xpu_opt", lambda m: torch.compile(
                     m, backend="xpu_opt", options={"target": "cpu"}))]
        for peer, compile_fn in peers:
            torch._dynamo.reset()
            xpu_opt.report(reset=True)
            try:
                got, first, ms = measure(compile_fn(model), ids, args.warmup,
                                         args.repeat)
            except Exception as error:  # a peer that cannot run here
                rows.append(f"| {name} | {peer} | not run: "
                            f"{first_line(error)} | | | | | |")
                continue
            err = relative_l2(got, want)
            ok = err <= args.tolerance
            failed |= not ok
            note = ""
            if peer == "xpu_opt":
                report = xpu_opt.report()
                note = (f" ({len(report.compiled)} compiled, "
                        f"{len(report.fell_back)} fell back)")
            rows.append(f"| {name} | {peer}{note} | {ms:.2f} | "
                        f"{tokens / ms * 1e3:.0f} | {eager_ms / ms:.2f}x | "
                        f"{err:.1e} | {'ok' if ok else 'FAIL'} | "
                        f"{first:.2f} |")
        print("\n".join(rows[-3:]), flush=True)
    print()
    print("\n".join(rows))
    if failed:
        print(f"FAIL: a relative L2 error above {args.tolerance:.0e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
