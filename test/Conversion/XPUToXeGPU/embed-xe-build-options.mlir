// xpu-embed-xe-build-options writes an #xevm.target's cmd-options into its
// SPIR-V object as OpModuleProcessed (after the memory model, before the
// types), where the xpu Level Zero runtime finds them; the module stays
// valid SPIR-V. Objects without options are left alone; an object that is
// not SPIR-V is skipped; a truncated SPIR-V object is an error.
// The object below: SPIR-V 1.4 header, OpCapability Addresses / Kernel /
// Linkage, OpMemoryModel Physical64 OpenCL, OpTypeVoid.
// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: not xpu-opt %s --split-input-file --xpu-embed-xe-build-options 2>/dev/null | FileCheck %s
// RUN: xpu-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(xpu-embed-xe-build-options,xpu-dump-gpu-binaries{dir=%t})' -o /dev/null
// RUN: spirv-val --target-env spv1.4 %t/large_grf.0.spv
// RUN: spirv-dis %t/large_grf.0.spv | FileCheck %s --check-prefix=DIS
// RUN: spirv-val --target-env spv1.4 %t/no_options.0.spv
// RUN: spirv-dis %t/no_options.0.spv | FileCheck %s --check-prefix=PLAIN
// Generic SPIR-V objects (#spirv.target_env) of an Xe target get the GRF
// mode the register model plans for SIMT kernels (256 on pvc and bmg);
// without a target, or on another vendor's, they are left alone. The
// target is the module's, attached by xpu-attach-target.
// RUN: not xpu-opt %s --split-input-file --xpu-attach-target=chip=pvc --xpu-embed-xe-build-options 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=GENERIC
// RUN: not xpu-opt %s --split-input-file --xpu-attach-target=chip=sm_90 --xpu-embed-xe-build-options 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=OTHER

// DIS: OpMemoryModel Physical64 OpenCL
// DIS-NEXT: OpModuleProcessed "xpu.build-options: -ze-opt-large-register-file"
// DIS-NEXT: %void = OpTypeVoid
// PLAIN-NOT: OpModuleProcessed

// CHECK: gpu.binary @large_grf
// CHECK-SAME: bin = "{{.*}}xpu.build-options: -ze-opt-large-register-file\00\00\13\00
module attributes {gpu.container_module} {
  gpu.binary @large_grf [#gpu.object<#xevm.target<chip = "pvc", flags = {"cmd-options" = ["-ze-opt-large-register-file"]}>, bin = "\03\02\23\07\00\04\01\00\00\00\00\00\02\00\00\00\00\00\00\00\11\00\02\00\04\00\00\00\11\00\02\00\06\00\00\00\11\00\02\00\05\00\00\00\0E\00\03\00\02\00\00\00\02\00\00\00\13\00\02\00\01\00\00\00">]
}

// -----

// CHECK: gpu.binary @no_options
// CHECK-NOT: xpu.build-options
// CHECK: gpu.binary @not_spirv
module attributes {gpu.container_module} {
  gpu.binary @no_options [#gpu.object<#xevm.target<chip = "bmg">, bin = "\03\02\23\07\00\04\01\00\00\00\00\00\02\00\00\00\00\00\00\00\11\00\02\00\04\00\00\00\11\00\02\00\06\00\00\00\11\00\02\00\05\00\00\00\0E\00\03\00\02\00\00\00\02\00\00\00\13\00\02\00\01\00\00\00">]
}

// -----

// Not SPIR-V (no magic number): skipped.
// CHECK-SAME: bin = "ELF">]
module attributes {gpu.container_module} {
  gpu.binary @not_spirv [#gpu.object<#xevm.target<chip = "pvc", flags = {"cmd-options" = ["-ze-opt-large-register-file"]}>, bin = "ELF">]
}

// -----

// The OpCapability claims 9 words but the module ends after 2.
module attributes {gpu.container_module} {
  // expected-error @+1 {{xpu-embed-xe-build-options: object of 'truncated' is not well-formed SPIR-V}}
  gpu.binary @truncated [#gpu.object<#xevm.target<chip = "pvc", flags = {"cmd-options" = ["-ze-opt-large-register-file"]}>, bin = "\03\02\23\07\00\04\01\00\00\00\00\00\02\00\00\00\00\00\00\00\11\00\09\00\04\00\00\00">]
}

// -----

// A generic kernel (xpu-spirv-pipeline): no options of its own. bmg, the
// module's own target, is kept by xpu-attach-target.
// CHECK: gpu.binary @generic{{ }}
// CHECK-NOT: xpu.build-options
// CHECK: gpu.binary @generic_bmg
// CHECK-SAME: xpu.build-options: -ze-opt-large-register-file
// GENERIC: gpu.binary @generic{{ }}
// GENERIC-SAME: "{{.*}}xpu.build-options: -ze-opt-large-register-file\00\00\13\00
// OTHER: gpu.binary @generic{{ }}
// OTHER-NOT: xpu.build-options
// OTHER: gpu.binary @generic_bmg
// OTHER-SAME: xpu.build-options: -ze-opt-large-register-file
module attributes {gpu.container_module} {
  gpu.binary @generic [#gpu.object<#spirv.target_env<#spirv.vce<v1.1, [Addresses, Kernel, SubgroupDispatch], []>, #spirv.resource_limits<>>, "\03\02\23\07\00\04\01\00\00\00\00\00\02\00\00\00\00\00\00\00\11\00\02\00\04\00\00\00\11\00\02\00\06\00\00\00\11\00\02\00\05\00\00\00\0E\00\03\00\02\00\00\00\02\00\00\00\13\00\02\00\01\00\00\00">]
}

// -----

module attributes {gpu.container_module, xpu.target = #xpu.target<"bmg">} {
  gpu.binary @generic_bmg [#gpu.object<#spirv.target_env<#spirv.vce<v1.1, [Addresses, Kernel, SubgroupDispatch], []>, #spirv.resource_limits<>>, "\03\02\23\07\00\04\01\00\00\00\00\00\02\00\00\00\00\00\00\00\11\00\02\00\04\00\00\00\11\00\02\00\06\00\00\00\11\00\02\00\05\00\00\00\0E\00\03\00\02\00\00\00\02\00\00\00\13\00\02\00\01\00\00\00">]
}
