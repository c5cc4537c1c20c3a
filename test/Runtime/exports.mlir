// Each runtime library built exports every function of XPURuntime.h (but
// those of another runtime's section) and every function xpu_opt binds
// (BOUND_FUNCTIONS in python/xpu_opt/_runtime.py): a missing one made
// xpu_opt fail to load the CUDA runtime (issue 22).
// DEFINE: %{check} = %python %xpu_src_root/test/lib/check_exports.py \
// DEFINE:   --header %xpu_src_root/runtime/include/xpu/Runtime/XPURuntime.h \
// DEFINE:   --bindings %xpu_src_root/python/xpu_opt/_runtime.py
// The checker reads every declaration of the header, those that span lines
// too (mgpuLaunchKernel was not checked before), and the common ones are
// required of every runtime: profiling and host registration included.
// RUN: %{check} --print-declarations | FileCheck %s --check-prefix=DECL
// DECL: mgpuLaunchKernel all
// DECL: mgpuMemHostRegisterMemRef all
// DECL: mgpuMemHostUnregisterMemRef all
// DECL: xpuRuntimeProfileStart all
// DECL: xpuRuntimeProfileStop all
// RUN: %if opencl-runtime %{ %{check} %xpu_obj_root/lib/libxpu_opencl_runtime.so=opencl | FileCheck %s --check-prefix=CL %}
// CL: PASS opencl
// RUN: %if levelzero-runtime %{ %{check} %xpu_obj_root/lib/libxpu_levelzero_runtime.so=levelzero | FileCheck %s --check-prefix=ZE %}
// ZE: PASS levelzero
// RUN: %if cuda-runtime %{ %{check} %xpu_obj_root/lib/libxpu_cuda_runtime.so=cuda | FileCheck %s --check-prefix=CU %}
// CU: PASS cuda
