"""A Hugging Face model through xpu_opt, three ways, against eager PyTorch:

    .venv/bin/python examples/huggingface/run.py --model=gpt2 [--target=cpu]
        [--trace=trace.json] [--checkpoint=model.safetensors]

The model is built from a small config with random weights (nothing is
downloaded; HF_HUB_OFFLINE=1), or from --checkpoint, a safetensors file of
the same config (written by --save-checkpoint=PATH). Then

1. torch.compile(model, backend="xpu_opt"): the GEMMs and their epilogues
   compile, attention and embeddings run as PyTorch; xpu_opt.report() says
   which;
2. xpu_opt.optimize(model, (ids,)): the MLP blocks and Linear layers are
   compiled in place, no Dynamo;
3. with --trace, a Chrome/Perfetto trace of one compiled forward.

Each prints the relative L2 error of the logits against eager PyTorch and
the time per forward (median of --repeat calls).
"""

import argparse
import copy
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors.torch import load_model, save_model  # noqa: E402

import xpu_opt  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = 512


def make(name, layers):
    """A small model of the family `name` from a config."""
    if name == "gpt2":
        return transformers.GPT2LMHeadModel(transformers.GPT2Config(
            n_layer=layers, n_embd=128, n_head=4, vocab_size=VOCAB,
            n_positions=128, bos_token_id=0, eos_token_id=0))
    if name == "bert":
        return transformers.BertForMaskedLM(transformers.BertConfig(
            num_hidden_layers=layers, hidden_size=128, num_attention_heads=4,
            intermediate_size=512, vocab_size=VOCAB,
            max_position_embeddings=128))
    if name == "llama":
        return transformers.LlamaForCausalLM(transformers.LlamaConfig(
            num_hidden_layers=layers, hidden_size=128, num_attention_heads=4,
            num_key_value_heads=2, intermediate_size=344, vocab_size=VOCAB,
            max_position_embeddings=128, bos_token_id=0, eos_token_id=0))
    raise SystemExit(f"unknown model {name!r} (gpt2, bert or llama)")


def relative_l2(got, want):
    return ((got.double() - want.double()).norm() /
            want.double().norm()).item()


def timed(model, ids, repeat):
    times = []
    with torch.no_grad():
        for _ in range(repeat):
            start = time.perf_counter()
            out = model(input_ids=ids).logits
            times.append(time.perf_counter() - start)
    return out, statistics.median(times) * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="gpt2")
    p.add_argument("--target", default="cpu")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--length", type=int, default=32)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--checkpoint", help="a safetensors file to load")
    p.add_argument("--save-checkpoint", help="write the weights here")
    p.add_argument("--trace", help="write a Chrome/Perfetto trace here")
    args = p.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)   # as xpu_opt's CPU code runs
    model = make(args.model, args.layers).eval()
    if args.checkpoint:
        load_model(model, args.checkpoint)
    if args.save_checkpoint:
        save_model(model, args.save_checkpoint)
    ids = torch.randint(0, VOCAB, (args.batch, args.length))
    want, eager_ms = timed(model, ids, args.repeat)
    print(f"{args.model}: {args.layers} layers, ids {tuple(ids.shape)}, "
          f"target {args.target}")
    print(f"eager PyTorch            {eager_ms:8.2f} ms per forward")

    fast = torch.compile(model, backend="xpu_opt",
                         options={"target": args.target})
    got, _ = timed(fast, ids, 1)           # compiles (cached on disk)
    got, ms = timed(fast, ids, args.repeat)
    print(f"torch.compile(xpu_opt)   {ms:8.2f} ms per forward, relative L2 "
          f"{relative_l2(got, want):.1e}")
    print(xpu_opt.report(reset=True))

    if args.trace:
        with torch.no_grad(), xpu_opt.profile(args.trace) as prof:
            fast(input_ids=ids)
        print(f"trace: {len(prof.events)} events in {args.trace} (open it in "
              "ui.perfetto.dev)")

    injected = copy.deepcopy(model)
    xpu_opt.optimize(injected, (ids,), target=args.target)
    got, ms = timed(injected, ids, args.repeat)
    print(f"xpu_opt.optimize         {ms:8.2f} ms per forward, relative L2 "
          f"{relative_l2(got, want):.1e}")
    print(f"compiled in place: {', '.join(injected.xpu_opt_compiled)}")


if __name__ == "__main__":
    main()
