// Every pipeline rejects vectors too large for the host lowering to unroll
// (xpu-check-vector-sizes), with an error at the op, before any other work.
// Found by the structured fuzzer: xpu-xe-pipeline=chip=bmg ran for ever on
// this function (convert-math-to-libm scalarizes vector math into one call
// per element, 2^31 here). `timeout` turns a hang into a failure.
// RUN: timeout 120 xpu-opt %s -verify-diagnostics --xpu-xe-pipeline=chip=bmg
// RUN: timeout 120 xpu-opt %s -verify-diagnostics --xpu-xe-pipeline
// RUN: timeout 120 xpu-opt %s -verify-diagnostics --xpu-spirv-pipeline
// RUN: timeout 120 xpu-opt %s -verify-diagnostics --xpu-nvvm-pipeline
// RUN: timeout 120 xpu-opt %s -verify-diagnostics --xpu-cpu-pipeline

func.func @vector_epilogue_math(%x: vector<2147483648xf32>) -> vector<2147483648xf32> {
  // expected-error @below {{xpu-check-vector-sizes: 'vector<2147483648xf32>' has more than 65536 elements, which the lowerings would unroll element by element}}
  %e = math.exp %x : vector<2147483648xf32>
  %g = math.erf %e : vector<2147483648xf32>
  %t = math.tanh %g : vector<2147483648xf32>
  return %t : vector<2147483648xf32>
}
