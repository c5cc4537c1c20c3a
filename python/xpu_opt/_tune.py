"""xpu_opt.tune: measured tuning of the GEMMs of an MLIR function with
xpu-tune (docs/Tuning.md), from Python."""

import json
import os
import pathlib
import subprocess
import tempfile

from . import _paths
from ._errors import CompileError


def tune(mlir, target="cpu", db=None, max_trials=10, function="forward",
         pipeline_options="", max_seconds=0, resume=False, repeat=5):
    """Tunes the GEMMs of `function` with xpu-tune and returns the tuning
    database it wrote (a dict: docs/Tuning.md, "The database").

      mlir: MLIR text, or the path of a .mlir file (xpu_opt.export's).
      target: cpu, opencl, levelzero or cuda (as xpu_opt.compile's).
      db: the database file to write (default: tuning.json in the
        xpu_opt cache directory, XPU_OPT_CACHE_DIR); GPU pipelines read it
        with pipeline_options="tuning-db=PATH" or XPU_OPT_TUNING_DB=PATH.
      max_trials: candidates measured per GEMM besides the default config.
      resume: keep the database's trials of these GEMMs and measure only
        the rest of the budget.

    Raises CompileError with xpu-tune's one-line message when it fails
    (bad arguments, an unwritable database, a default config that fails).
    """
    if isinstance(max_trials, bool) or not isinstance(max_trials, int):
        raise TypeError(f"xpu_opt.tune: max_trials must be an int, got "
                        f"{max_trials!r}")
    if db:
        db = pathlib.Path(db)
    else:
        db = _paths.cache_dir() / "tuning.json"
        db.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="xpu-tune-") as tmp:
        path = pathlib.Path(str(mlir)) if _is_path(mlir) else None
        if path is None:
            path = pathlib.Path(tmp) / "model.mlir"
            path.write_text(mlir)
        args = [str(_paths._tool("xpu-tune")), str(path),
                f"--target={target}", f"--function={function}",
                f"--db={db}", f"--max-trials={max_trials}",
                f"--max-seconds={max_seconds}", f"--repeat={repeat}",
                f"--xpu-pipeline-options={pipeline_options}"]
        if resume:
            args.append("--resume")
        result = subprocess.run(args, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        lines = [l for l in result.stderr.splitlines() if "error" in l]
        raise CompileError(lines[0] if lines else result.stderr.strip())
    with open(db) as f:
        return json.load(f)


def _is_path(mlir):
    if isinstance(mlir, os.PathLike):
        return True
    return (isinstance(mlir, str) and "\n" not in mlir and
            mlir.endswith(".mlir") and os.path.exists(mlir))
