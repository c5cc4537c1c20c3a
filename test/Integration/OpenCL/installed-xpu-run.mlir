// An installed xpu-run (cmake --install into a fresh prefix) runs on OpenCL
// with the runtime library of its own prefix (../lib next to it), not the
// one of the build tree it came from; the result is checked against NumPy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cmake --install %xpu_obj_root --prefix %t/prefix > %t/install.log
// RUN: cat %S/linear-bn-relu.mlir %S/../CPU/Inputs/gen.mlir > %t/model.mlir
// RUN: env LD_DEBUG=files %t/prefix/bin/xpu-run %t/model.mlir --target=opencl \
// RUN:     -e main -entry-point-result=void 2> %t/ld-debug.log \
// RUN:   | %refcheck --input x=16x64@1 --input w=32x64@2 --input b=32@3 \
// RUN:       --input gamma=32@4 --input beta=32@5 --input mean=32@6 --input var=32@7:pos \
// RUN:       --expr "np.maximum((x @ w.T + b - mean) / np.sqrt(var + 1e-5) * gamma + beta, 0)" \
// RUN:       --tol 1e-5
// RUN: FileCheck %s -DBUILD=%xpu_obj_root -DPREFIX=%t/prefix < %t/ld-debug.log
// CHECK-NOT: file=[[BUILD]]/lib/libxpu_opencl_runtime.so
// CHECK: file=[[PREFIX]]/lib/libxpu_opencl_runtime.so
// CHECK-NOT: file=[[BUILD]]/lib/libxpu_opencl_runtime.so
