//===- Passes.td - xpu transformation passes ---------------*- tablegen -*-===//

#ifndef XPU_DIALECT_XPU_TRANSFORMS_PASSES_TD
#define XPU_DIALECT_XPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def XPURaisePass : Pass<"xpu-raise", "func::FuncOp"> {
  let summary = "Raise torch-mlir style linalg contractions to xpu.gemm";
  let description = [{
    Recognizes the GEMMs torch-mlir emits for PyTorch models and rewrites
    them into `xpu.gemm`:

    * `linalg.matmul` and `linalg.batch_matmul`, with default or explicit
      (MLIR 22 transposed-operand) `indexing_maps`;
    * a `linalg.transpose` of the rhs (nn.Linear's `weight.t()`) is absorbed
      into `rhs_layout(nk)` instead of being copied;
    * the zero `linalg.fill` of the accumulator is absorbed; any other
      initial value becomes a `full` epilogue operand that is added to the
      accumulator.

    Elementwise consumers (bias add, activations) are left as they are; the
    fusion pass moves them into the epilogue. What is not recognized is left
    unchanged and a remark (`--xpu-remarks`) says why. With `strict`, a
    contraction that cannot be raised because its shapes are dynamic is an
    error instead, which is what a pipeline that needs static shapes wants.

    Before:
    ```mlir
    %wt = linalg.transpose ins(%w : tensor<256x128xf32>)
            outs(%e0 : tensor<128x256xf32>) permutation = [1, 0]
    %z  = linalg.fill ins(%cst : f32) outs(%e1 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %y  = linalg.matmul ins(%x, %wt : tensor<64x128xf32>, tensor<128x256xf32>)
            outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
    ```
    After:
    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
           : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Report contractions with dynamic shapes as errors instead of "
           "leaving them unchanged">
  ];
  let statistics = [
    Statistic<"numRaised", "num-raised", "Contractions raised to xpu.gemm">,
    Statistic<"numTransposesAbsorbed", "num-transposes-absorbed",
              "rhs transposes absorbed into rhs_layout(nk)">,
    Statistic<"numRefused", "num-refused",
              "Contractions left unchanged, with a remark">
  ];
}

#endif // XPU_DIALECT_XPU_TRANSFORMS_PASSES_TD
