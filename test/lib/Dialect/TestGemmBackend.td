//===- TestGemmBackend.td - a GEMM backend for tests -----*- tablegen -*-===//
//
// The xpu_test dialect: one attribute, #xpu_test.backend, that implements
// GemmBackendAttrInterface as the real backends do. It shows (and tests)
// that the layers above a backend know it only through the interface.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TEST_TESTGEMMBACKEND_TD
#define XPU_TEST_TESTGEMMBACKEND_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/DialectBase.td"
include "xpu/Dialect/XPU/IR/GemmBackendInterface.td"

def XPUTest_Dialect : Dialect {
  let name = "xpu_test";
  let summary = "Test-only attributes of xpu-opt";
  let cppNamespace = "::mlir::xpu::test";
  let useDefaultAttributePrinterParser = 1;
}

def XPUTest_GemmBackendAttr : AttrDef<XPUTest_Dialect, "TestGemmBackend",
    [DeclareAttrInterfaceMethods<XPU_GemmBackendAttrInterface,
                                 ["getRowPitch", "getBufferAlignment"]>]> {
  let mnemonic = "backend";
  let summary = "A GEMM backend whose rows are padded to `pitch` elements";
  let description = [{
    Accepts every GEMM and config; its layout is A, B and the result with
    rows padded to a multiple of `pitch` elements; it uses no shared memory
    and runs `resident` workgroups per compute unit.

    ```mlir
    #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1],
                stages = 1, schedule = data_parallel,
                backend = #xpu_test.backend<pitch = 32, resident = 2>>
    ```
  }];
  let parameters = (ins "int64_t":$pitch, "int64_t":$resident);
  let assemblyFormat = "`<` `pitch` `=` $pitch `,` `resident` `=` $resident `>`";
  let genVerifyDecl = 1;
}

#endif // XPU_TEST_TESTGEMMBACKEND_TD
