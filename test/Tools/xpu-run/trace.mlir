// xpu-run --trace=FILE: a Chrome/Perfetto trace of the run, in the format
// of the Python package's traces (python/xpu_opt/_trace.py), checked by
// test/lib/tracecheck.py (schema, names, durations >= 0, nesting).

// RUN: rm -rf %t && mkdir -p %t

// Linear + BatchNorm + ReLU on the CPU: the pipeline and the JIT as
// `compile` events, the weights packed once (`pack`, forward.pack), then
// one `call` event per call of forward.packed, in order; the CPU runs no
// kernels, so there are no `kernel` events. Tracing does not change the
// results, and --time still prints its lines.
// RUN: xpu-run %xpu_src_root/examples/linear_bn_relu.mlir --function=forward --repeat=3 --time --trace=%t/bn.json --output=@%t/bn.npy 2>&1 | FileCheck %s --check-prefix=TIME
// TIME: xpu-run: @forward on cpu: 3 call(s)
// TIME-NEXT: xpu-run: @forward.pack (weights packed once, before the calls): {{[0-9.]+}} ms
// RUN: %python %xpu_src_root/test/lib/tracecheck.py %t/bn.json --count compile:compile=1 --count compile:jit=1 --count pack:forward.pack=1 --count call:forward.packed=3 --count kernel=0 --calls forward.packed=3 | FileCheck %s --check-prefix=BN
// BN: PASS: 6 complete events, categories call, compile, pack
// RUN: xpu-run %xpu_src_root/examples/linear_bn_relu.mlir --function=forward --repeat=3 --output=@%t/bn-untraced.npy 2>/dev/null
// RUN: cmp %t/bn.npy %t/bn-untraced.npy
// RUN: FileCheck %s --check-prefix=JSON < %t/bn.json
// JSON: {"displayTimeUnit":"ms","traceEvents":[{"args":{"name":"xpu-run"},"name":"process_name","ph":"M"
// JSON-SAME: "args":{"symbol":"_mlir_ciface___xpu_entry_forward.pack","target":"cpu"},"cat":"pack","dur":

// A function without packed weights: one `call` event per call of forward.
// RUN: xpu-run %s --function=forward --repeat=2 --trace=%t/plain.json > /dev/null
// RUN: %python %xpu_src_root/test/lib/tracecheck.py %t/plain.json --count pack=0 --count call:forward=2 --calls forward=2 | FileCheck %s --check-prefix=PLAIN
// PLAIN: PASS: 4 complete events, categories call, compile

// -e main: @main as one `call` event.
// RUN: echo 'func.func @main() { return }' | xpu-run -e main -entry-point-result=void --trace=%t/main.json
// RUN: %python %xpu_src_root/test/lib/tracecheck.py %t/main.json --count compile=2 --count call:main=1 | FileCheck %s --check-prefix=MAIN
// MAIN: PASS: 3 complete events, categories call, compile

// The checker is not a rubber stamp: a negative duration, a call event
// that partly overlaps another and a wrong count fail.
// RUN: %python -c "import json, sys; t = json.load(open(sys.argv[1])); [e.update(dur=-1.0) for e in t['traceEvents'] if e.get('cat') == 'pack']; json.dump(t, open(sys.argv[2], 'w'))" %t/bn.json %t/negative.json
// RUN: not %python %xpu_src_root/test/lib/tracecheck.py %t/negative.json | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: FAIL: negative duration
// RUN: %python -c "import json, sys; t = json.load(open(sys.argv[1])); c = [e for e in t['traceEvents'] if e.get('cat') == 'call']; c[1].update(ts=c[0]['ts'] + c[0]['dur'] / 2, dur=c[0]['dur'] * 10 + 1); json.dump(t, open(sys.argv[2], 'w'))" %t/bn.json %t/overlap.json
// RUN: not %python %xpu_src_root/test/lib/tracecheck.py %t/overlap.json | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: FAIL: forward.packed overlaps its enclosing event partly
// RUN: not %python %xpu_src_root/test/lib/tracecheck.py %t/bn.json --count call:forward.packed=2 | FileCheck %s --check-prefix=WRONGCOUNT
// WRONGCOUNT: FAIL: 3 events call:forward.packed, expected 2

// Bad use: one error line and exit status 1, before anything compiles; a
// failed run leaves no trace file.
// RUN: not xpu-run %s --function=forward --trace=%t/no-such-dir/t.json 2>&1 | FileCheck %s --check-prefix=BADPATH
// RUN: not xpu-run %s --function=forward --trace=%t/no-such-dir/t.json 2>&1 | count 1
// BADPATH: error: xpu-run: cannot write the trace to '{{.*}}no-such-dir/t.json': No such file or directory
// RUN: not xpu-run %s --function=forward --trace=%t/t.json --emit-package=%t/pkg 2>&1 | FileCheck %s --check-prefix=PACKAGE
// PACKAGE: error: xpu-run: --trace records a run; it does not apply to --compare-pipeline, --emit-object or --emit-package
// RUN: not xpu-run %s --function=forward --input="4xf32=1" --trace=%t/failed.json 2>&1 | FileCheck %s --check-prefix=FAILED
// FAILED: error: xpu-run:
// RUN: not ls %t/failed.json

func.func @forward(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %g = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}
