# A stand-in for the MLIR package of another release (21.1), for the test
# that find_package(XPU) refuses an MLIR other than the one xpu was built
# against. It defines only what XPUConfig.cmake reads before that check.
set(MLIR_FOUND TRUE)
set(LLVM_VERSION_MAJOR 21)
set(LLVM_VERSION_MINOR 1)
set(LLVM_VERSION_PATCH 0)
set(LLVM_PACKAGE_VERSION 21.1.0)
set(MLIR_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}/include")
