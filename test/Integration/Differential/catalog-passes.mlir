// Differential checks: every catalog pass, and xpu-optimize, is run on the
// CPU before and after it, on the same random inputs (3 seeds, negative and
// positive values), and xpu-run exits 1 when a result differs by more than
// the tolerance (1e-5 of the result scale; bf16: 2 u sqrt(K)); folds that
// reassociate (xpu-fold-affine-into-weights) run with reassociate=true. Variances
// get positive values (--compare-positive): BatchNorm asserts var + eps > 0.

// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='func.func(xpu-raise)'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='func.func(xpu-raise),xpu-lower-to-linalg'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='func.func(xpu-raise,xpu-fuse-epilogue)'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='func.func(xpu-raise,xpu-fuse-epilogue,xpu-fold-affine-into-weights{reassociate=true})'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='func.func(xpu-raise,xpu-fuse-epilogue,xpu-fold-affine-into-weights{reassociate=true},xpu-simplify-epilogue)'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='func.func(xpu-raise),xpu-outline-weight-pack'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='func.func(xpu-raise,xpu-split-gemm-reduction,xpu-analyze)'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='xpu-optimize'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='xpu-optimize{reassociate=true}'
// RUN: xpu-run %s --compare-function=linear_bn_gelu_relu --compare-positive=6 --compare-pipeline='xpu-optimize{precision=bf16}' --compare-precision=bf16

// KernelBench 39 (Gemm_Scale_BatchNorm): scale, then BatchNorm.
// RUN: xpu-run %s --compare-function=gemm_scale_batchnorm --compare-positive=7 --compare-pipeline='func.func(xpu-raise,xpu-fuse-epilogue,xpu-fold-affine-into-weights{reassociate=true})'
// RUN: xpu-run %s --compare-function=gemm_scale_batchnorm --compare-positive=7 --compare-pipeline='xpu-optimize'
// RUN: xpu-run %s --compare-function=gemm_scale_batchnorm --compare-positive=7 --compare-pipeline='xpu-optimize{reassociate=true}'

// A chain the register guard splits, and a residual that reuses the GEMM.
// RUN: xpu-run %s --compare-function=heavy_chain --compare-pipeline='func.func(xpu-raise,xpu-fuse-epilogue)'
// RUN: xpu-run %s --compare-function=heavy_chain --compare-pipeline='xpu-optimize'
// RUN: xpu-run %s --compare-function=residual --compare-pipeline='xpu-optimize'

// f64 demoted to f32 (f32 rounding of f64 data is far below 1e-5).
// RUN: xpu-run %s --compare-function=linear_f64 --compare-pipeline='func.func(xpu-raise,xpu-demote-f64)'
// RUN: xpu-run %s --compare-function=linear_f64 --compare-pipeline='xpu-optimize'

// bf16 operands: within 2 u sqrt(K), and not within f32's tolerance.
// RUN: xpu-run %s --compare-function=residual --compare-pipeline='func.func(xpu-raise,xpu-prepack-bf16)' --compare-precision=bf16
// RUN: not xpu-run %s --compare-function=residual --compare-pipeline='func.func(xpu-raise,xpu-prepack-bf16)' | FileCheck %s --check-prefix=BF16-AT-F32
// BF16-AT-F32: xpu-run compare: FAIL

// Two GEMMs with a sigmoid between them (KernelBench 45's chain): with bf16
// operands the first GEMM's epilogue rounds the hidden activation to bf16
// (xpu-prepack-bf16), which must match converting it afterwards; at f32
// precision the chain is left as it is.
// RUN: xpu-run %s --compare-function=two_layers --compare-pipeline='xpu-optimize{precision=bf16}' --compare-precision=bf16
// RUN: xpu-run %s --compare-function=two_layers --compare-pipeline='xpu-optimize'
// RUN: xpu-opt %s --xpu-optimize='precision=bf16' | FileCheck %s --check-prefix=TWO-LAYERS
// TWO-LAYERS-LABEL: func.func @two_layers.packed
//       TWO-LAYERS:   xpu.gemm
//       TWO-LAYERS:     arith.truncf %{{.+}} : f32 to bf16
//  TWO-LAYERS-NEXT:     xpu.yield %{{.+}} : bf16
//  TWO-LAYERS-NEXT:   } : ({{.+}}) -> tensor<8x32xbf16>
//   TWO-LAYERS-NOT:   linalg.generic
//       TWO-LAYERS:   xpu.gemm

// A model cast to bf16 (KernelBench 81's chain): torch-mlir rounds every
// epilogue op to bf16; xpu-widen-epilogue computes them in f32 and rounds
// once, which stays within the bf16 tolerance of the op-by-op model (and
// the model with round-each-op=true still matches it).
// RUN: xpu-run %s --compare-function=swish_clamp_tanh_bf16 --compare-pipeline='func.func(xpu-raise,xpu-fuse-epilogue,xpu-widen-epilogue)' --compare-precision=bf16
// RUN: xpu-run %s --compare-function=swish_clamp_tanh_bf16 --compare-pipeline='xpu-optimize' --compare-precision=bf16
// RUN: xpu-run %s --compare-function=swish_clamp_tanh_bf16 --compare-pipeline='xpu-optimize{round-each-op=true}' --compare-precision=bf16

// A GEMM followed by a row reduction (softmax's max).
// RUN: xpu-run %s --compare-function=gemm_rowmax --compare-pipeline='xpu-optimize'

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>

// nn.Linear(64, 32) + BatchNorm1d(32).eval() + GELU + ReLU, torch-mlir form.
func.func @linear_bn_gelu_relu(%x: tensor<16x64xf32>, %w: tensor<32x64xf32> {xpu.weight}, %b: tensor<32xf32> {xpu.weight},
                               %gamma: tensor<32xf32> {xpu.weight}, %beta: tensor<32xf32> {xpu.weight},
                               %mean: tensor<32xf32> {xpu.weight}, %var: tensor<32xf32> {xpu.weight}) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %one = arith.constant 1.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %rs2 = arith.constant 0.707106769 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%e0 : tensor<64x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<32xf32>
  %invstd = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%var : tensor<32xf32>) outs(%e2 : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.cmpf one, %1, %cst : f32
    cf.assert %2, "unimplemented: tensor with zero element"
    %3 = arith.divf %one, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<32xf32>
  %bn = linalg.generic {indexing_maps = [#id, #col, #col, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased, %mean, %invstd, %gamma, %beta : tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
      outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %g: f32, %bt: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.mulf %0, %s : f32
    %2 = arith.mulf %1, %g : f32
    %3 = arith.addf %2, %bt : f32
    linalg.yield %3 : f32
  } -> tensor<16x32xf32>
  %gelu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bn : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %rs2 : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.mulf %in, %half : f32
    %4 = arith.mulf %3, %2 : f32
    linalg.yield %4 : f32
  } -> tensor<16x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gelu : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ugt, %in, %cst : f32
    %1 = arith.select %0, %in, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<16x32xf32>
  return %relu : tensor<16x32xf32>
}

// KernelBench 39: x @ W^T + b, * scale (per channel), BatchNorm (rsqrt form
// with expand_shape'd [1, C] statistics).
func.func @gemm_scale_batchnorm(%x: tensor<24x48xf32>, %w: tensor<40x48xf32> {xpu.weight}, %b: tensor<40xf32> {xpu.weight},
                                %scale: tensor<40xf32> {xpu.weight}, %gamma: tensor<40xf32> {xpu.weight}, %beta: tensor<40xf32> {xpu.weight},
                                %mean: tensor<40xf32> {xpu.weight}, %var: tensor<40xf32> {xpu.weight}) -> tensor<24x40xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %e0 = tensor.empty() : tensor<48x40xf32>
  %wt = linalg.transpose ins(%w : tensor<40x48xf32>) outs(%e0 : tensor<48x40xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<24x40xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<24x48xf32>, tensor<48x40xf32>) outs(%z : tensor<24x40xf32>) -> tensor<24x40xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %scale : tensor<24x40xf32>, tensor<40xf32>, tensor<40xf32>) outs(%e : tensor<24x40xf32>) {
  ^bb0(%in: f32, %bb: f32, %s: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<24x40xf32>
  %m2 = tensor.expand_shape %mean [[0, 1]] output_shape [1, 40] : tensor<40xf32> into tensor<1x40xf32>
  %v2 = tensor.expand_shape %var [[0, 1]] output_shape [1, 40] : tensor<40xf32> into tensor<1x40xf32>
  %g2 = tensor.expand_shape %gamma [[0, 1]] output_shape [1, 40] : tensor<40xf32> into tensor<1x40xf32>
  %b2 = tensor.expand_shape %beta [[0, 1]] output_shape [1, 40] : tensor<40xf32> into tensor<1x40xf32>
  %bn = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (0, d1)>,
                                         affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (0, d1)>, #id],
                        iterator_types = ["parallel", "parallel"]}
      ins(%y, %m2, %v2, %g2, %b2 : tensor<24x40xf32>, tensor<1x40xf32>, tensor<1x40xf32>, tensor<1x40xf32>, tensor<1x40xf32>)
      outs(%e : tensor<24x40xf32>) {
  ^bb0(%in: f32, %m: f32, %vv: f32, %g: f32, %bt: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.addf %vv, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %0, %2 : f32
    %4 = arith.mulf %3, %g : f32
    %5 = arith.addf %4, %bt : f32
    linalg.yield %5 : f32
  } -> tensor<24x40xf32>
  return %bn : tensor<24x40xf32>
}

// tanh(y) * exp(y) * y + tanh(y): the register guard splits it after the bias.
func.func @heavy_chain(%x: tensor<16x32xf32>, %w: tensor<24x32xf32> {xpu.weight}, %b: tensor<24xf32> {xpu.weight}) -> tensor<16x24xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16x24xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : tensor<16x32xf32>, tensor<24x32xf32>) outs(%z : tensor<16x24xf32>) -> tensor<16x24xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x24xf32>, tensor<24xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %y = arith.addf %in, %bb : f32
    %t = math.tanh %y : f32
    %x1 = math.exp %y : f32
    %s = arith.mulf %t, %x1 : f32
    %u = arith.mulf %s, %y : f32
    %o = arith.addf %u, %t : f32
    linalg.yield %o : f32
  } -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}

// relu(a @ b) + a @ b with b a [k, n] weight.
func.func @residual(%a: tensor<8x64xf32>, %bw: tensor<64x12xf32> {xpu.weight}) -> tensor<8x12xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x12xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  %mm = linalg.matmul ins(%a, %bw : tensor<8x64xf32>, tensor<64x12xf32>) outs(%z : tensor<8x12xf32>) -> tensor<8x12xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x12xf32>) outs(%e : tensor<8x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.cmpf ugt, %in, %cst : f32
    %s = arith.select %c, %in, %cst : f32
    linalg.yield %s : f32
  } -> tensor<8x12xf32>
  %o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %mm : tensor<8x12xf32>, tensor<8x12xf32>) outs(%e : tensor<8x12xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<8x12xf32>
  return %o : tensor<8x12xf32>
}

// Linear, sigmoid, Linear (no bias): the hidden activation is read only
// by the second GEMM.
func.func @two_layers(%x: tensor<8x64xf32>, %w1: tensor<64x32xf32> {xpu.weight}, %w2: tensor<32x12xf32> {xpu.weight}) -> tensor<8x12xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x12xf32>
  %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<8x12xf32>) -> tensor<8x12xf32>
  %y = linalg.matmul ins(%s, %w2 : tensor<8x32xf32>, tensor<32x12xf32>) outs(%z2 : tensor<8x12xf32>) -> tensor<8x12xf32>
  return %y : tensor<8x12xf32>
}

// A float64 Linear + bias + tanh.
func.func @linear_f64(%x: tensor<8x16xf64>, %w: tensor<12x16xf64> {xpu.weight}, %b: tensor<12xf64> {xpu.weight}) -> tensor<8x12xf64> {
  %cst = arith.constant 0.000000e+00 : f64
  %e0 = tensor.empty() : tensor<16x12xf64>
  %wt = linalg.transpose ins(%w : tensor<12x16xf64>) outs(%e0 : tensor<16x12xf64>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x12xf64>
  %z = linalg.fill ins(%cst : f64) outs(%e : tensor<8x12xf64>) -> tensor<8x12xf64>
  %mm = linalg.matmul ins(%x, %wt : tensor<8x16xf64>, tensor<16x12xf64>) outs(%z : tensor<8x12xf64>) -> tensor<8x12xf64>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<8x12xf64>, tensor<12xf64>) outs(%e : tensor<8x12xf64>) {
  ^bb0(%in: f64, %bb: f64, %out: f64):
    %0 = arith.addf %in, %bb : f64
    %1 = math.tanh %0 : f64
    linalg.yield %1 : f64
  } -> tensor<8x12xf64>
  return %r : tensor<8x12xf64>
}

// exp(a @ b - 1) followed by its row max (a softmax's first reduction).
func.func @gemm_rowmax(%a: tensor<8x16xf32>, %bw: tensor<16x24xf32> {xpu.weight}) -> tensor<8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x24xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %mm = linalg.matmul ins(%a, %bw : tensor<8x16xf32>, tensor<16x24xf32>) outs(%z : tensor<8x24xf32>) -> tensor<8x24xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x24xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.subf %in, %one : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x24xf32>
  %er = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %mx = linalg.reduce ins(%ex : tensor<8x24xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.maximumf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %mx : tensor<8xf32>
}

// nn.Linear(64, 24) + swish + divide + clamp + tanh, the model cast to bf16
// as torch-mlir writes it: the GEMM in f32 on extended operands, every
// elementwise op on bf16.
func.func @swish_clamp_tanh_bf16(%x: tensor<16x64xbf16>, %w: tensor<24x64xbf16> {xpu.weight}, %b: tensor<24xbf16> {xpu.weight}) -> tensor<16x24xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : bf16
  %two = arith.constant 2.000000e+00 : bf16
  %mone = arith.constant -1.000000e+00 : bf16
  %e0 = tensor.empty() : tensor<64x24xbf16>
  %wt = linalg.transpose ins(%w : tensor<24x64xbf16>) outs(%e0 : tensor<64x24xbf16>) permutation = [1, 0]
  %ex = tensor.empty() : tensor<16x64xf32>
  %xf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x64xbf16>) outs(%ex : tensor<16x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<16x64xf32>
  %ew = tensor.empty() : tensor<64x24xf32>
  %wf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%wt : tensor<64x24xbf16>) outs(%ew : tensor<64x24xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<64x24xf32>
  %eb = tensor.empty() : tensor<24xf32>
  %bf = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%b : tensor<24xbf16>) outs(%eb : tensor<24xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<24xf32>
  %e = tensor.empty() : tensor<16x24xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %mm = linalg.matmul ins(%xf, %wf : tensor<16x64xf32>, tensor<64x24xf32>) outs(%z : tensor<16x24xf32>) -> tensor<16x24xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bf : tensor<16x24xf32>, tensor<24xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<16x24xf32>
  %eh = tensor.empty() : tensor<16x24xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<16x24xf32>) outs(%eh : tensor<16x24xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<16x24xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<16x24xbf16>) outs(%eh : tensor<16x24xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %0 = arith.negf %in : bf16
    %1 = math.exp %0 : bf16
    %2 = arith.addf %1, %one : bf16
    %3 = arith.divf %one, %2 : bf16
    %4 = arith.mulf %in, %3 : bf16
    %5 = arith.divf %4, %two : bf16
    %6 = arith.cmpf ult, %5, %mone : bf16
    %7 = arith.select %6, %mone, %5 : bf16
    %8 = arith.cmpf ugt, %7, %one : bf16
    %9 = arith.select %8, %one, %7 : bf16
    %10 = math.tanh %9 : bf16
    linalg.yield %10 : bf16
  } -> tensor<16x24xbf16>
  return %y : tensor<16x24xbf16>
}
