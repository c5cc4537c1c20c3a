// RUN: xpu-opt %s --split-input-file --xpu-nvgpu-bf16-mma-to-nvvm | FileCheck %s
// The result lowers the rest of the way (convert-nvgpu-to-nvvm alone fails
// on bf16: "failed to deduce operand PTX types").
// RUN: xpu-opt %s --split-input-file --xpu-nvgpu-bf16-mma-to-nvvm --convert-nvgpu-to-nvvm | FileCheck %s --check-prefix=LLVM

// bf16 m16n8k16: each row of the A (4) and B (2) fragments is one 32-bit
// register; the four f32 results are repacked into the accumulator.
// CHECK-LABEL: func.func @bf16
//  CHECK-SAME:   (%[[A:.+]]: vector<4x2xbf16>, %[[B:.+]]: vector<2x2xbf16>, %[[C:.+]]: vector<2x2xf32>)
//       CHECK:   %[[A0:.+]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
//       CHECK:   vector.bitcast %[[A0]] : vector<2xbf16> to vector<1xi32>
// CHECK-COUNT-3: vector.bitcast %{{.+}} : vector<2xbf16> to vector<1xi32>
// CHECK-COUNT-2: vector.bitcast %{{.+}} : vector<2xbf16> to vector<1xi32>
//       CHECK:   %[[R:.+]] = nvvm.mma.sync A[{{.+}}] B[{{.+}}] C[{{.+}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[R]]
//   CHECK-NOT:   nvgpu.mma.sync
// LLVM-LABEL: func.func @bf16
//   LLVM-NOT:   nvgpu.mma.sync
//       LLVM:   nvvm.mma.sync {{.+}}multiplicandAPtxType = #nvvm.mma_type<bf16>
func.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// f16 and tf32 are left to convert-nvgpu-to-nvvm.
// CHECK-LABEL: func.func @f16_untouched
//       CHECK:   nvgpu.mma.sync
//   CHECK-NOT:   nvvm.mma.sync
func.func @f16_untouched(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
