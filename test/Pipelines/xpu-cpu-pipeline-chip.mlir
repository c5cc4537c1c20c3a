// xpu-cpu-pipeline's chip: the #xpu.target preset, the register tile and
// the CPU and features every LLVM function is compiled for.
// RUN: xpu-opt %s --xpu-cpu-pipeline="chip=x86-64-v3 threads=1" --xpu-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=V3-TILE
// RUN: xpu-opt %s --xpu-cpu-pipeline="chip=x86-64-v3 threads=1" | FileCheck %s --check-prefix=V3
// RUN: xpu-opt %s --xpu-cpu-pipeline="chip=sapphirerapids threads=1" --xpu-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPR-TILE
// RUN: xpu-opt %s --xpu-cpu-pipeline="chip=sapphirerapids threads=1" | FileCheck %s --check-prefix=SPR
// Threads: the outlined parallel bodies are marked too.
// RUN: xpu-opt %s --xpu-cpu-pipeline="chip=znver4 threads=2" | FileCheck %s --check-prefix=ZEN4
// chip=host (the default) names the host's own CPU and features.
// RUN: xpu-opt %s --xpu-cpu-pipeline | FileCheck %s --check-prefix=HOST

// V3-TILE: lhs packed into 6-row panels, rhs ([k, n]) into 16-column panels
// V3: llvm.func @forward({{.*}} attributes {target_cpu = "x86-64-v3", target_features = #llvm.target_features<["+avx", "+avx2", "+bmi", "+bmi2", "+f16c", "+fma", "+lzcnt", "+movbe"]>}

// SPR-TILE: lhs packed into 14-row panels, rhs ([k, n]) into 32-column panels
// SPR: llvm.func @forward({{.*}} attributes {target_cpu = "sapphirerapids", target_features = #llvm.target_features<[{{.*}}"+avx512f"{{.*}}"+amx-tile", "+amx-bf16", "+amx-int8"]>}

// ZEN4: llvm.func internal @forward_par0({{.*}}target_cpu = "znver4"
// ZEN4: llvm.func @forward({{.*}}target_cpu = "znver4"
// ZEN4: llvm.func internal @wide_par1({{.*}}target_cpu = "znver4"
// ZEN4: llvm.func @wide({{.*}}target_cpu = "znver4"

// HOST: llvm.func @forward({{.*}} attributes {target_cpu = "{{[^"]+}}", target_features = #llvm.target_features<[{{.*}}"+64bit"

func.func @forward(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}

func.func @wide(%a: tensor<16x32xf32>, %b: tensor<32x1024xf32>) -> tensor<16x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x1024xf32>) outs(%f : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  return %r : tensor<16x1024xf32>
}
