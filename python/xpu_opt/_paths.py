"""Where the build tree's tools and libraries are.

The package is installed in editable mode from python/ in the source tree
(scripts/setup.sh), so the build tree is found next to it: <repo>/build, or
the directory named by XPU_OPT_BUILD_DIR (for a build elsewhere, as
`make BUILD_DIR=...` makes).
"""

import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]


def build_dir() -> pathlib.Path:
    override = os.environ.get("XPU_OPT_BUILD_DIR")
    return pathlib.Path(override) if override else REPO / "build"


def _tool(name) -> pathlib.Path:
    path = build_dir() / "bin" / name
    if not path.exists():
        raise FileNotFoundError(
            f"xpu_opt: {path} does not exist: build the project first (make), "
            "or set XPU_OPT_BUILD_DIR to the build directory")
    return path


def xpu_run() -> pathlib.Path:
    return _tool("xpu-run")


def xpu_opt() -> pathlib.Path:
    return _tool("xpu-opt")


def runtime_dir() -> pathlib.Path:
    return build_dir() / "lib"


def mlir_lib_dir() -> pathlib.Path:
    """LLVM's library directory, from the build's CMake cache."""
    cache = build_dir() / "CMakeCache.txt"
    if cache.exists():
        for line in cache.read_text(errors="replace").splitlines():
            if line.startswith("MLIR_DIR:"):
                # <prefix>/lib/cmake/mlir
                return pathlib.Path(line.split("=", 1)[1]).parents[1]
    return pathlib.Path("/usr/lib/llvm-22/lib")


def cache_dir() -> pathlib.Path:
    override = os.environ.get("XPU_OPT_CACHE_DIR")
    if override:
        return pathlib.Path(override)
    return build_dir() / "xpu_opt_cache"
