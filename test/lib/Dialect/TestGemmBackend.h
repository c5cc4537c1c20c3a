//===- TestGemmBackend.h - a GEMM backend for tests -------------*- C++ -*-===//

#ifndef XPU_TEST_TESTGEMMBACKEND_H
#define XPU_TEST_TESTGEMMBACKEND_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::xpu::test {
/// Adds the xpu_test dialect (#xpu_test.backend) to `registry`.
void registerTestGemmBackend(DialectRegistry &registry);
} // namespace mlir::xpu::test

#endif // XPU_TEST_TESTGEMMBACKEND_H
