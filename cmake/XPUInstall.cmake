# Installation and the CMake package: `cmake --install build --prefix P` puts
# the public headers, the xpu libraries, xpu-opt, xpu-run, the mlir-opt
# plugin and the GPU runtimes under P, and `find_package(XPU CONFIG)` with
# CMAKE_PREFIX_PATH=P gives them as imported targets XPU::<name>.
#
# Included last from the top-level CMakeLists.txt, once every target exists.
# add_mlir_library already installs each xpu library into the export set
# that AddMLIR.cmake names for the "MLIR" project (MLIRTargets; nothing of
# upstream MLIR is in it in this build), and records it in the global
# property MLIR_EXPORTS. We add the tools, the plugin and the runtimes to
# the same set and install it as XPUTargets.cmake.

include(CMakePackageConfigHelpers)

set(XPU_INSTALL_INCLUDE_DIR include)
set(XPU_INSTALL_LIB_DIR lib${LLVM_LIBDIR_SUFFIX})
set(XPU_INSTALL_PACKAGE_DIR ${XPU_INSTALL_LIB_DIR}/cmake/xpu)

# Public headers: registration (InitAll.h), pipelines and their options,
# pass declarations and options, populate*Patterns, the dialect, the
# version, the runtime C ABI. Dialect/XPU/Utils is internal to the passes.
install(DIRECTORY ${XPU_SOURCE_DIR}/include/xpu/
  DESTINATION ${XPU_INSTALL_INCLUDE_DIR}/xpu
  COMPONENT xpu-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
  PATTERN "Utils" EXCLUDE)
install(DIRECTORY ${XPU_BINARY_DIR}/include/xpu/
  DESTINATION ${XPU_INSTALL_INCLUDE_DIR}/xpu
  COMPONENT xpu-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.h.inc"
  PATTERN "CMakeFiles" EXCLUDE
  PATTERN "BuildPaths.h" EXCLUDE)
install(DIRECTORY ${XPU_SOURCE_DIR}/runtime/include/xpu/
  DESTINATION ${XPU_INSTALL_INCLUDE_DIR}/xpu
  COMPONENT xpu-headers
  FILES_MATCHING PATTERN "*.h")

# Libraries (already in the export set): their headers live under the
# prefix once installed.
get_property(XPU_EXPORTED_LIBRARIES GLOBAL PROPERTY MLIR_EXPORTS)
foreach(lib IN LISTS XPU_EXPORTED_LIBRARIES)
  target_include_directories(${lib} INTERFACE
    $<INSTALL_INTERFACE:${XPU_INSTALL_INCLUDE_DIR}>)
endforeach()

# Tools, the plugin and the runtimes. Installed programs find libMLIR.so in
# the LLVM installation they were built against.
set(XPU_INSTALLED_PROGRAMS xpu-opt xpu-run xpu-tune)
set(XPU_INSTALLED_MODULES)
if(TARGET XPUPlugin)
  list(APPEND XPU_INSTALLED_MODULES XPUPlugin)
endif()
set(XPU_INSTALLED_RUNTIMES)
foreach(rt xpu_opencl_runtime xpu_levelzero_runtime)
  if(TARGET ${rt})
    list(APPEND XPU_INSTALLED_RUNTIMES ${rt})
  endif()
endforeach()
foreach(t IN LISTS XPU_INSTALLED_PROGRAMS)
  set_property(TARGET ${t} APPEND PROPERTY INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
endforeach()
install(TARGETS ${XPU_INSTALLED_PROGRAMS} ${XPU_INSTALLED_MODULES}
    ${XPU_INSTALLED_RUNTIMES}
  EXPORT MLIRTargets
  COMPONENT xpu
  RUNTIME DESTINATION bin
  LIBRARY DESTINATION ${XPU_INSTALL_LIB_DIR}
  ARCHIVE DESTINATION ${XPU_INSTALL_LIB_DIR})

install(EXPORT MLIRTargets
  NAMESPACE XPU::
  FILE XPUTargets.cmake
  DESTINATION ${XPU_INSTALL_PACKAGE_DIR}
  COMPONENT xpu)

# XPUConfig.cmake finds the same MLIR, checks its release and adds the
# MLIR/LLVM include directories to the imported libraries.
set(XPU_CONFIG_LIBRARIES ${XPU_EXPORTED_LIBRARIES})
configure_package_config_file(
  ${XPU_SOURCE_DIR}/cmake/XPUConfig.cmake.in
  ${XPU_BINARY_DIR}/cmake/XPUConfig.cmake
  INSTALL_DESTINATION ${XPU_INSTALL_PACKAGE_DIR}
  PATH_VARS XPU_INSTALL_INCLUDE_DIR XPU_INSTALL_LIB_DIR)
write_basic_package_version_file(
  ${XPU_BINARY_DIR}/cmake/XPUConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${XPU_BINARY_DIR}/cmake/XPUConfig.cmake
  ${XPU_BINARY_DIR}/cmake/XPUConfigVersion.cmake
  DESTINATION ${XPU_INSTALL_PACKAGE_DIR}
  COMPONENT xpu)

# Everything `cmake --install` copies, for the test that installs into a
# temporary prefix (test/Install).
set(XPU_INSTALLED_TARGETS ${XPU_EXPORTED_LIBRARIES} ${XPU_INSTALLED_PROGRAMS}
  ${XPU_INSTALLED_MODULES} ${XPU_INSTALLED_RUNTIMES})
