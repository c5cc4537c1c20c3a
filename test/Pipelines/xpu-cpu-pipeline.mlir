// xpu-cpu-pipeline output runs on stock mlir-runner, with the same result as
// xpu-run, both checked against NumPy.
// RUN: cat %S/../Integration/CPU/linear-bn-relu.mlir %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-cpu-pipeline -o %t.ll.mlir
// RUN: FileCheck %s --check-prefix=LLVM < %t.ll.mlir
// RUN: mlir-runner %t.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | %refcheck --input x=16x64@1 --input w=32x64@2 --input b=32@3 \
// RUN:       --input gamma=32@4 --input beta=32@5 --input mean=32@6 --input var=32@7:pos \
// RUN:       --expr "np.maximum((x @ w.T + b - mean) / np.sqrt(var + 1e-5) * gamma + beta, 0)" --tol 1e-5
// An already lowered module is run as it is by xpu-run.
// RUN: xpu-run %t.ll.mlir -e main -entry-point-result=void \
// RUN:   | %refcheck --input x=16x64@1 --input w=32x64@2 --input b=32@3 \
// RUN:       --input gamma=32@4 --input beta=32@5 --input mean=32@6 --input var=32@7:pos \
// RUN:       --expr "np.maximum((x @ w.T + b - mean) / np.sqrt(var + 1e-5) * gamma + beta, 0)" --tol 1e-5

// Everything is in the LLVM dialect: no tensor, linalg, vector, memref or
// xpu op is left (an op is indented or follows "= "; the pack parts keep
// their xpu.pack_part attribute). <fn>.pack and <fn>.packed have C
// interfaces.
// LLVM: llvm.func @forward
// LLVM-NOT: {{(= |[[:blank:]]{2})(linalg|tensor|vector|memref|xpu|scf|arith)\.}}
// LLVM: llvm.func @_mlir_ciface_forward.pack({{.*}} attributes {llvm.emit_c_interface, target_cpu = "{{[^"]+}}", target_features = #llvm.target_features<[{{.*}}]>, xpu.pack_part = "pack"}
// LLVM-NOT: {{(= |[[:blank:]]{2})(linalg|tensor|vector|memref|xpu|scf|arith)\.}}
// LLVM: llvm.func @_mlir_ciface_forward.packed({{.*}} attributes {llvm.emit_c_interface, target_cpu = "{{[^"]+}}", target_features = #llvm.target_features<[{{.*}}]>, xpu.pack_part = "packed"}
// LLVM-NOT: {{(= |[[:blank:]]{2})(linalg|tensor|vector|memref|xpu|scf|arith)\.}}
// LLVM: llvm.func @main
