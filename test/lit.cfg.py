# -*- Python -*-
import os
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "XPU"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs", "lib"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.xpu_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%xpu_src_root", config.xpu_src_root))
# The reference checker needs NumPy: use the interpreter running lit if it has
# it, else Debian's python3 (scripts/setup.sh installs python3-numpy there).
def _has_numpy(python):
    try:
        return subprocess.call([python, "-c", "import numpy"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0
    except OSError:
        return False

config.python_executable = sys.executable
if not _has_numpy(sys.executable) and _has_numpy("/usr/bin/python3"):
    config.python_executable = "/usr/bin/python3"

# The reference checker compares a run's printed result with NumPy in float64.
config.substitutions.append(
    ("%refcheck",
     "%s %s" % (config.python_executable,
                os.path.join(config.xpu_src_root, "test", "lib", "refcheck.py"))))
config.substitutions.append(("%python", config.python_executable))
# spirv-val on every kernel binary a dump wrote (fails on an empty dump).
config.substitutions.append(
    ("%spirv-val-dir",
     "%s %s" % (config.python_executable,
                os.path.join(config.xpu_src_root, "test", "lib",
                             "spirv_val_dir.py"))))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

import shutil
if shutil.which("spirv-val") and shutil.which("spirv-dis"):
    config.available_features.add("spirv-tools")

# The plugin for stock mlir-opt (test/Plugin), a copy stamped with another
# LLVM release, and what test/Install needs to install xpu and build
# examples/downstream against it. The longer name is substituted first.
xpu_lib_dir = os.path.join(config.xpu_obj_root, "lib")
xpu_plugin = os.path.join(xpu_lib_dir, "XPUPlugin.so")
if os.path.exists(xpu_plugin):
    config.available_features.add("xpu-plugin")
config.substitutions.append(
    ("%xpu_plugin_wrong_llvm",
     os.path.join(xpu_lib_dir, "XPUPluginWrongLLVMForTest.so")))
config.substitutions.append(("%xpu_plugin", xpu_plugin))
config.substitutions.append(("%xpu_obj_root", config.xpu_obj_root))
config.substitutions.append(("%cmake_make_program", config.cmake_make_program))
config.substitutions.append(("%cmake_cxx_compiler", config.cmake_cxx_compiler))
config.substitutions.append(("%cmake", config.cmake_command))

# NVIDIA: ptxas (the CUDA toolkit, for cubins and the ptxas -v checks) and
# the CUDA runtime library. Kernels that need a GPU are in
# test/Integration/CUDA (feature cuda-device, set there).
ptxas = getattr(config, "xpu_ptxas", "") or shutil.which("ptxas")
if ptxas and os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas-check",
                                 "%s %s --ptxas %s" % (
                                     config.python_executable,
                                     os.path.join(config.xpu_src_root, "test",
                                                  "lib", "ptxascheck.py"),
                                     ptxas)))
if os.path.exists(os.path.join(xpu_lib_dir, "libxpu_cuda_runtime.so")):
    config.available_features.add("cuda-runtime")

tool_dirs = [config.xpu_tools_dir, config.llvm_tools_dir]
tools = [
    "xpu-opt",
    "xpu-run",
    "xpu-compile",
    "not",
    "count",
    ToolSubst("mlir-opt", unresolved="ignore"),
    ToolSubst("mlir-runner", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
