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
config.substitutions.append(
    ("%mathcheck",
     "%s %s" % (config.python_executable,
                os.path.join(config.xpu_src_root, "test", "lib",
                             "mathcheck.py"))))
config.substitutions.append(("%python", config.python_executable))
# spirv-val on every kernel binary a dump wrote (fails on an empty dump).
config.substitutions.append(
    ("%spirv-val-dir",
     "%s %s" % (config.python_executable,
                os.path.join(config.xpu_src_root, "test", "lib",
                             "spirv_val_dir.py"))))

# Two pipeline outputs with SPIR-V gpu.binary blobs: the same IR, and the
# same valid SPIR-V up to id numbering.
config.substitutions.append(
    ("%same-binaries",
     "%s %s" % (config.python_executable,
                os.path.join(config.xpu_src_root, "test", "lib",
                             "same_binaries.py"))))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# A sanitized build (build-asan, make test-sanitizers): every report is
# fatal. Debian's libMLIR.so is not instrumented: leak checks would report
# its allocations, and its allocators poison memory in ways ASan misreads
# (docs/Testing.md). Stock tools that load our instrumented plugin or
# runtimes get the sanitizer runtimes preloaded.
if config.xpu_sanitizers:
    config.available_features.add("sanitizers")
    config.environment["ASAN_OPTIONS"] = \
        "detect_leaks=0:allow_user_poisoning=0:abort_on_error=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
# A test that expects a process to die of SIGSEGV/SIGBUS (`not --crash`) runs
# it under %default_fault_handlers: ASan's own handlers would turn the fault
# into a report and exit status 1. Empty in other builds.
config.substitutions.append(
    ("%default_fault_handlers",
     "env ASAN_OPTIONS=" + config.environment["ASAN_OPTIONS"] +
     ":handle_segv=0:handle_sigbus=0" if config.xpu_sanitizers else ""))

import shutil
if all(shutil.which(t)
       for t in ("spirv-val", "spirv-dis", "spirv-opt", "spirv-as")):
    config.available_features.add("spirv-tools")

# Vendor compilers (scripts/setup.sh). `ocloc`: Intel's offline compiler with
# IGC 2.x, from scripts/fetch-intel-ocloc.sh (or --param ocloc=PATH; Debian
# bookworm's own ocloc is too old), for test/Vendor/IGC. `ptxas`: NVIDIA's
# assembler from the CUDA toolkit (or --param ptxas=PATH).
def _runs(tool, *args):
    try:
        return subprocess.call([tool] + list(args), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=60) == 0
    except (OSError, subprocess.TimeoutExpired):
        return False

ocloc = lit_config.params.get(
    "ocloc", os.path.join(config.xpu_src_root, ".vendor", "intel-ocloc", "bin",
                          "ocloc"))
if os.path.exists(ocloc) and _runs(ocloc, "--version"):
    config.available_features.add("ocloc")
    version = os.path.join(os.path.dirname(ocloc), "..", "VERSION")
    if os.path.exists(version):
        lit_config.note("ocloc: " + open(version).read().strip())
config.substitutions.append(("%ocloc", ocloc))
config.substitutions.append(
    ("%igccheck",
     "%s %s --ocloc %s" % (config.python_executable,
                           os.path.join(config.xpu_src_root, "test", "lib",
                                        "igccheck.py"), ocloc)))
ptxas = lit_config.params.get("ptxas", shutil.which("ptxas") or
                              "/usr/local/cuda/bin/ptxas")
if os.path.exists(ptxas) and _runs(ptxas, "--version"):
    config.available_features.add("ptxas")
# After %ptxas-check below in the list: lit substitutes in order, and
# %ptxas is a prefix of it.
_ptxas_substitution = ("%ptxas", ptxas)

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
# (ptxas is the one found above, or --param ptxas=PATH.)
if "ptxas" in config.available_features:
    config.substitutions.append(("%ptxas-check",
                                 "%s %s --ptxas %s" % (
                                     config.python_executable,
                                     os.path.join(config.xpu_src_root, "test",
                                                  "lib", "ptxascheck.py"),
                                     ptxas)))
config.substitutions.append(_ptxas_substitution)
if os.path.exists(os.path.join(xpu_lib_dir, "libxpu_cuda_runtime.so")):
    config.available_features.add("cuda-runtime")

# The host CPU's features as LLVM detects them (xpu-run --xpu-list-targets,
# the detection chip=host compiles for), as features x86-<name>
# (x86-avx512f, x86-amx-bf16, ...): ISA-specific tests REQUIRE them and are
# UNSUPPORTED on hosts without.
def _host_cpu_features():
    xpu_run = os.path.join(config.xpu_tools_dir, "xpu-run")
    try:
        out = subprocess.run([xpu_run, "--xpu-list-targets"],
                             capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    for line in out.splitlines():
        if line.startswith("host features:"):
            return line.split(":", 1)[1].split()
    return []

for _feature in _host_cpu_features():
    config.available_features.add("x86-" + _feature)

tool_dirs = [config.xpu_tools_dir, config.llvm_tools_dir]
tools = [
    "xpu-opt",
    "xpu-run",
    "xpu-compile",
    ToolSubst("xpu-tune", unresolved="ignore"),
    "split-file",
    "not",
    "count",
]
# A test that sets LD_PRELOAD itself names the sanitizer runtimes first
# (%sanitizer_preload_prefix, empty in other builds) and runs the bare tool.
_preload = (config.xpu_sanitizer_preload
            if config.xpu_sanitizers and config.xpu_sanitizer_preload else "")
config.substitutions.append(("%sanitizer_preload_prefix",
                             _preload + ":" if _preload else ""))
# Hosts that are not instrumented (Python running a compiled model, stock
# mlir-opt-22 in the documents' commands) load our instrumented libraries:
# every test process gets the sanitizer runtimes first.
if _preload:
    config.environment["LD_PRELOAD"] = _preload
config.substitutions.append(
    ("%mlir_opt_path", os.path.join(config.llvm_tools_dir, "mlir-opt")))
# LLVM 22's own llc and mlir-translate (Debian's /usr/bin/llc is LLVM 14,
# which cannot read LLVM 22 IR): for the tests that look at the
# instructions the CPU pipeline's code compiles to.
tools += [ToolSubst(t, unresolved="ignore") for t in ["llc", "mlir-translate"]]
for stock in ["mlir-opt", "mlir-runner"]:
    path = shutil.which(stock, path=config.llvm_tools_dir)
    if path and _preload:
        tools.append(ToolSubst(stock, command="env",
                               extra_args=["LD_PRELOAD=" +
                                           config.xpu_sanitizer_preload,
                                           path]))
    else:
        tools.append(ToolSubst(stock, unresolved="ignore"))
llvm_config.add_tool_substitutions(tools, tool_dirs)

# PyTorch and torch-mlir in the project's .venv (scripts/setup.sh installs
# them): the Python tests (test/Python) REQUIRE `torch`.
venv_python = os.path.join(config.xpu_src_root, ".venv", "bin", "python")
config.substitutions.append(("%venv_python", venv_python))
if os.path.exists(venv_python):
    try:
        if subprocess.call([venv_python, "-c", "import torch, torch_mlir.fx, xpu_opt"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=300) == 0:
            config.available_features.add("torch")
    except (OSError, subprocess.TimeoutExpired):
        pass
# Hugging Face transformers and safetensors in the same .venv (setup.sh).
if "torch" in config.available_features:
    try:
        if subprocess.call([venv_python, "-c", "import transformers, safetensors"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=300) == 0:
            config.available_features.add("transformers")
    except (OSError, subprocess.TimeoutExpired):
        pass
# The Python package finds this build tree through the environment.
config.environment["XPU_OPT_BUILD_DIR"] = config.xpu_obj_root
# The xpu_opt package of this source tree, not the one the .venv was
# installed from (a git worktree that shares the main tree's .venv).
config.environment["PYTHONPATH"] = os.pathsep.join(
    [os.path.join(config.xpu_src_root, "python")] +
    ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
config.environment["XPU_OPT_CACHE_DIR"] = os.path.join(config.xpu_obj_root,
                                                       "test", "xpu_opt_cache")

# An OpenCL device (PoCL on the CPU here) for the tests that run kernels.
_clinfo = shutil.which("clinfo")
if _clinfo:
    try:
        _r = subprocess.run([_clinfo, "-l"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, timeout=60)
        if _r.returncode == 0 and b"Device #" in _r.stdout:
            config.available_features.add("opencl-device")
    except (OSError, subprocess.TimeoutExpired):
        pass
