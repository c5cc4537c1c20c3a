// An installed xpu-run (cmake --install into a fresh prefix) runs on OpenCL
// with the runtime library of its own prefix (../lib next to it), not the
// one of the build tree it came from; the result is checked against NumPy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cmake --install %xpu_obj_root --prefix %t/prefix > %t/install.log
// RUN: cat %S/../CPU/linear-bn-relu.mlir %S/../CPU/Inputs/gen.mlir > %t/model.mlir
// RUN: env LD_DEBUG=files %t/prefix/bin/xpu-run %t/model.mlir --target=opencl \
// RUN:     -e main -entry-point-result=void 2> %t/ld-debug.log \
// RUN:   | %refcheck --spec-from %S/../CPU/linear-bn-relu.mlir
// RUN: FileCheck %s -DBUILD=%xpu_obj_root -DPREFIX=%t/prefix < %t/ld-debug.log
// CHECK-NOT: file=[[BUILD]]/lib/libxpu_opencl_runtime.so
// CHECK: file=[[PREFIX]]/lib/libxpu_opencl_runtime.so
// CHECK-NOT: file=[[BUILD]]/lib/libxpu_opencl_runtime.so
