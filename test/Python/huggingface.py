"""Hugging Face models through xpu_opt (issue 27, part 2): a model built
from a small config (random weights, nothing downloaded: HF_HUB_OFFLINE=1)

* through torch.compile(model, backend="xpu_opt"): every GEMM partition
  compiles (none falls back), attention (scaled_dot_product_attention)
  and the embeddings run as PyTorch, and the logits are within 1e-4
  relative L2 (||got - eager|| / ||eager||) of eager PyTorch in f32, for
  two batches of token ids;
* the same model with transformers' eager attention: the attention scores
  (matmul, scale, mask, softmax) compile as one partition, logits within
  1e-4;
* with torch.compile(dynamic=True), batch sizes 3 and 17: one Dynamo
  graph, partitions that keep their epilogues (specialized on the symbolic
  sizes' values), logits within 1e-4;
* the same model in bf16 through the backend: within 1.6e-2 (4 u, u =
  2^-8) relative L2 of eager bf16 and of the model in float64 (on OpenCL,
  which has no bf16, every partition falls back and the logits are
  eager's);
* through xpu_opt.optimize(model, (ids,)): its MLP blocks and Linear
  layers compiled in place (a trace shows one compiled call each per
  forward), the logits within 1e-4 of eager; a safetensors
  checkpoint written from another model of the same config and loaded
  (safetensors.torch.load_model: load_state_dict) is seen (the logits then
  match that model's, 1e-4).

    huggingface.py --model=gpt2|bert|llama --target=cpu|opencl
"""

import argparse
import copy
import os
import pathlib
import sys
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"

import torch  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402

import transformers  # noqa: E402
from safetensors.torch import load_model, save_model  # noqa: E402

transformers.logging.set_verbosity_error()

TOL = 1e-4
VOCAB = 128


def make(name, seed, attention="sdpa"):
    """A small model of the family `name`, in eval mode, weights from
    `seed`, with transformers' `attention` implementation."""
    torch.manual_seed(seed)
    if name == "gpt2":
        config = transformers.GPT2Config(
            n_layer=1, n_embd=64, n_head=4, vocab_size=VOCAB, n_positions=64,
            bos_token_id=0, eos_token_id=0)
        model = transformers.GPT2LMHeadModel(config)
    elif name == "bert":
        config = transformers.BertConfig(
            num_hidden_layers=1, hidden_size=64, num_attention_heads=4,
            intermediate_size=128, vocab_size=VOCAB,
            max_position_embeddings=64)
        model = transformers.BertForMaskedLM(config)
    elif name == "llama":
        config = transformers.LlamaConfig(
            num_hidden_layers=1, hidden_size=64, num_attention_heads=4,
            num_key_value_heads=2, intermediate_size=128, vocab_size=VOCAB,
            max_position_embeddings=64, bos_token_id=0, eos_token_id=0)
        model = transformers.LlamaForCausalLM(config)
    else:
        raise SystemExit(f"unknown model {name}")
    model.set_attn_implementation(attention)
    return model.eval()


def relative_l2(got, want):
    return ((got.double() - want.double()).norm() /
            want.double().norm()).item()


def ids(seed, batch=2, length=16):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, VOCAB, (batch, length), generator=g)


def logits(model, x):
    with torch.no_grad():
        return model(input_ids=x).logits


p = argparse.ArgumentParser()
p.add_argument("--model", required=True)
p.add_argument("--target", default="cpu")
args = p.parse_args()
NAME, TARGET = args.model, args.target


@t.case(f"{NAME} through torch.compile(backend='xpu_opt') on {TARGET}")
def through_backend():
    model = make(NAME, 0)
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt",
                         options={"target": TARGET})
    worst = 0.0
    for seed in (1, 2):
        x = ids(seed)
        err = relative_l2(logits(fast, x), logits(model, x))
        assert err <= TOL, f"relative L2 {err:.2e} > {TOL:.0e}"
        worst = max(worst, err)
    report = xpu_opt.report()
    assert report.compiled and not report.fell_back, str(report)
    eager = " ".join(e.name for e in report.eager)
    assert "scaled_dot_product_attention" in eager and "embedding" in eager, \
        str(report)
    return (f"{len(report.compiled)} partitions compiled, relative L2 "
            f"{worst:.2e} (tolerance {TOL:.0e})")


@t.case(f"{NAME} with eager attention through the backend on {TARGET}")
def eager_attention():
    model = make(NAME, 0, attention="eager")
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt",
                         options={"target": TARGET})
    x = ids(5)
    err = relative_l2(logits(fast, x), logits(model, x))
    assert err <= TOL, f"relative L2 {err:.2e} > {TOL:.0e}"
    report = xpu_opt.report()
    assert report.compiled and not report.fell_back, str(report)
    scores = [e.ops for e in report.compiled
              if e.ops[0] == "matmul" and "softmax" in e.ops]
    assert scores, "q @ k^T and its softmax did not compile: " + str(report)
    return f"attention scores compiled as {scores[0]}, relative L2 {err:.2e}"


@t.case(f"{NAME} with dynamic=True through the backend on {TARGET}")
def dynamic():
    model = make(NAME, 0)
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt", dynamic=True,
                         options={"target": TARGET})
    worst = 0.0
    for batch in (3, 17):
        x = ids(6 + batch, batch=batch)
        err = relative_l2(logits(fast, x), logits(model, x))
        assert err <= TOL, f"batch {batch}: relative L2 {err:.2e}"
        worst = max(worst, err)
    report = xpu_opt.report()
    assert report.compiled and not report.fell_back, str(report)
    graphs = {e.name.split("_")[0] for e in report.compiled}
    assert len(graphs) == 1, f"Dynamo recompiled: {graphs}"
    longest = max(len(e.ops) for e in report.compiled)
    assert longest >= 3, f"epilogues lost with symbolic sizes: {report}"
    return (f"{len(report.compiled)} variants in one graph, relative L2 "
            f"{worst:.2e}")


BF16_TOL = 1.6e-2  # 4 u, u = 2^-8: bf16 rounding of each op's result


@t.case(f"{NAME} in bf16 through the backend on {TARGET}")
def bf16():
    model = make(NAME, 0)
    reference = copy.deepcopy(model).double()
    model = model.to(torch.bfloat16)
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt",
                         options={"target": TARGET})
    x = ids(4)
    got, want = logits(fast, x), logits(model, x)
    assert got.dtype == torch.bfloat16, got.dtype
    report = xpu_opt.report()
    if TARGET == "opencl":
        # OpenCL SPIR-V has no bf16: every partition falls back.
        assert not report.compiled and report.fell_back, str(report)
        assert torch.equal(got, want), "the fallback is not eager's"
        return f"{len(report.fell_back)} partitions fell back (no bf16)"
    assert report.compiled and not report.fell_back, str(report)
    err = relative_l2(got, want)
    err64 = relative_l2(got, logits(reference, x))
    assert err <= BF16_TOL and err64 <= BF16_TOL, \
        f"relative L2 {err:.2e} to eager bf16, {err64:.2e} to f64"
    return (f"relative L2 {err:.2e} to eager bf16, {err64:.2e} to f64 "
            f"(tolerance {BF16_TOL:.1e})")


@t.case(f"{NAME} through xpu_opt.optimize on {TARGET}")
def through_optimize():
    model = make(NAME, 0)
    eager = copy.deepcopy(model)
    x = ids(3)
    xpu_opt.report(reset=True)
    xpu_opt.optimize(model, (x,), target=TARGET)
    assert model.xpu_opt_compiled, str(xpu_opt.report())
    with xpu_opt.profile() as prof:
        got = logits(model, x)
    calls = [e for e in prof.events if e["cat"] == "host"]
    assert len(calls) == len(model.xpu_opt_compiled), \
        f"{len(calls)} compiled calls for {model.xpu_opt_compiled}"
    err = relative_l2(got, logits(eager, x))
    assert err <= TOL, f"relative L2 {err:.2e} > {TOL:.0e}"
    # A checkpoint of another model, loaded into the optimized one.
    other = make(NAME, 7)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors")
        save_model(other, path)   # tied weights are stored once
        load_model(model, path)   # load_state_dict under the hood
    err2 = relative_l2(logits(model, x), logits(other, x))
    assert err2 <= TOL, f"after loading: relative L2 {err2:.2e}"
    return (f"compiled {model.xpu_opt_compiled}; relative L2 {err:.2e}, "
            f"{err2:.2e} after loading a checkpoint")


t.finish()
