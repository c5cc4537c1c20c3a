//===- Passes.td - xpu conversion passes -------------------*- tablegen -*-===//

#ifndef XPU_CONVERSION_PASSES_TD
#define XPU_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def XPULowerToLinalgPass : Pass<"xpu-lower-to-linalg"> {
  let summary = "Lower xpu.gemm and its epilogue to linalg on tensors";
  let description = [{
    The executable definition of the dialect. Each `xpu.gemm` becomes a zero
    `linalg.fill` of an accumulator tensor, a `linalg.matmul` (or
    `linalg.batch_matmul`) whose `indexing_maps` read the rhs in its layout,
    and, unless the epilogue is the identity, one elementwise
    `linalg.generic` whose body is the epilogue region, with each epilogue
    operand read through the indexing map of its broadcast kind.

    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
           epilogue(%b per_col : tensor<256xf32>) {
      ^bb0(%acc: f32, %bias: f32):
        %t = arith.addf %acc, %bias : f32
        xpu.yield %t : f32
    } : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
    ```
    becomes `linalg.fill` + `linalg.matmul indexing_maps = [(m, k), (n, k),
    (m, n)]` + a `linalg.generic` with maps `(m, n) -> (m, n)`,
    `(m, n) -> (n)` and `(m, n) -> (m, n)` computing `acc + bias`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numLowered", "num-lowered", "xpu.gemm ops lowered to linalg">
  ];
}

#endif // XPU_CONVERSION_PASSES_TD
