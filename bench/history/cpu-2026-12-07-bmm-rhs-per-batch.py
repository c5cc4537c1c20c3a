import sys, time, os, torch
sys.path.insert(0, "/work/main/python")
import xpu_opt
os.sched_setaffinity(0, {1}); torch.set_num_threads(1)
torch.manual_seed(0)
a = torch.randn(16, 128, 256); b = torch.randn(16, 256, 512)
ref = torch.bmm(a.double(), b.double())
for p in ["f32", "bf16"]:
    mods = {v: xpu_opt.load(f"/tmp/ab/{v}-{p}", target="cpu") for v in ["old", "new"]}
    best = {v: 1e9 for v in mods}
    for v, m in mods.items():
        y = m(a, b)
        y = y[0] if isinstance(y, (tuple, list)) else y
        err = ((y.double() - ref).norm() / ref.norm()).item()
        print(p, v, "rel err %.2e" % err)
    for r in range(8):
        for v, m in mods.items():
            for _ in range(3): m(a, b)
            t = time.perf_counter()
            for _ in range(10): m(a, b)
            best[v] = min(best[v], (time.perf_counter() - t) / 10)
    print(p, " ".join(f"{v} {best[v]*1e3:.3f} ms" for v in best), "speedup old/new %.2fx" % (best["old"] / best["new"]))
