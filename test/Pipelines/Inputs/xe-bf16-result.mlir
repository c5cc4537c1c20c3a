// Issue 10 (fuzzer): a bf16 model whose GEMM returns bf16 (Linear + bias,
// rounded to bf16). Its bf16 result reached XeVM's SPIR-V serializer, which
// stopped with "OpTypeFloat type with bfloat requires ... SPV_KHR_bfloat16";
// the kernel now stores the f32 accumulator and the host rounds it.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16> {xpu.weight}, %b: tensor<256xf32> {xpu.weight}) -> tensor<64x256xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x256xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e0 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x128xbf16>, tensor<128x256xbf16>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
  %e1 = tensor.empty() : tensor<64x256xbf16>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<64x256xf32>, tensor<256xf32>) outs(%e1 : tensor<64x256xbf16>) {
  ^bb0(%a: f32, %bb: f32, %o: bf16):
    %0 = arith.addf %a, %bb : f32
    %1 = arith.truncf %0 : f32 to bf16
    linalg.yield %1 : bf16
  } -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
