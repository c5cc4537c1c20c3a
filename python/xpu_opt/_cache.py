"""The on-disk cache of xpu_opt: exported MLIR and compiled libraries.

Layout: <root>/<kind>/<key>/ holds an entry's files and manifest.json, which
lists every file with its size and SHA-256. An entry is published whole (it
is written into a temporary directory beside it and renamed into place) and
is used only after every file matches its manifest, so a truncated
`model.so` is never handed to dlopen (a truncated shared library faults the
process that maps it) and a damaged entry is rebuilt, not trusted.

The root is $XPU_OPT_CACHE_DIR, else <build>/xpu_opt_cache. When it cannot
be written, the process warns once and writes into a private temporary
directory, removed at exit; valid entries of the unwritable root are still
read.
"""

import atexit
import hashlib
import json
import os
import pathlib
import shutil
import tempfile
import threading
import warnings

from . import _paths

FORMAT = 1
_MANIFEST = "manifest.json"

_lock = threading.Lock()
_roots = {}  # wanted root -> (directories to read, directory to write)


def _writable(path):
    """None if files can be created in `path` (made if missing), else the
    reason."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
        return None
    except OSError as e:
        return e.strerror or str(e)


def _dirs():
    wanted = _paths.cache_dir()
    with _lock:
        if wanted not in _roots:
            reason = _writable(wanted)
            if reason is None:
                _roots[wanted] = ([wanted], wanted)
            else:
                private = pathlib.Path(tempfile.mkdtemp(prefix="xpu_opt-cache-"))
                atexit.register(shutil.rmtree, private, True)
                warnings.warn(
                    f"xpu_opt: the cache directory {wanted} cannot be written "
                    f"({reason}); this process caches compiled modules in "
                    f"{private}, removed at exit. Set XPU_OPT_CACHE_DIR to a "
                    "writable directory to keep them.", RuntimeWarning,
                    stacklevel=4)
                _roots[wanted] = ([wanted, private], private)
        return _roots[wanted]


def root():
    """The directory new entries are written to."""
    return _dirs()[1]


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _valid(entry, names):
    """True if `entry` has a manifest that lists `names` and every file
    matches it (size, then SHA-256)."""
    try:
        manifest = json.loads((entry / _MANIFEST).read_text())
        files = manifest["files"]
        if manifest.get("format") != FORMAT or not set(names) <= set(files):
            return False
        for name, info in files.items():
            path = entry / name
            if path.stat().st_size != info["size"]:
                return False
            if _digest(path) != info["sha256"]:
                return False
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _remove(entry):
    shutil.rmtree(entry, ignore_errors=True)


def lookup(kind, key, names):
    """{name: path} of a valid entry holding `names`, or None. A damaged
    entry is removed (where the cache can be written) so that it is
    rebuilt."""
    for directory in _dirs()[0]:
        entry = directory / kind / key
        if not entry.exists():
            continue
        if _valid(entry, names):
            return {name: entry / name for name in names}
        _remove(entry)
    return None


def store(kind, key, files):
    """Publishes an entry: `files` maps each name to bytes or str contents,
    or to a path whose file is moved in. Returns {name: path}."""
    directory = root() / kind
    directory.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(dir=directory, prefix=".tmp-"))
    try:
        # mkdtemp makes a private directory; an entry is as readable as the
        # cache directory (a shared, read-only cache serves other users).
        tmp.chmod(directory.stat().st_mode & 0o777)
        manifest = {"format": FORMAT, "files": {}}
        for name, content in files.items():
            path = tmp / name
            if isinstance(content, pathlib.Path):
                shutil.move(str(content), path)
            elif isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
            manifest["files"][name] = {"size": path.stat().st_size,
                                       "sha256": _digest(path)}
        (tmp / _MANIFEST).write_text(json.dumps(manifest, indent=1))
        final = directory / key
        if final.exists():
            if _valid(final, files):
                _remove(tmp)  # another process published it first
                return {name: final / name for name in files}
            _remove(final)
        try:
            os.rename(tmp, final)
        except OSError:
            # Published by another process in between.
            _remove(tmp)
            if not _valid(final, files):
                raise
        return {name: final / name for name in files}
    except BaseException:
        _remove(tmp)
        raise


def scratch(kind, key):
    """A directory for files that are not cache entries (a failed
    compilation's input, kept so that its command can be repeated)."""
    path = root() / kind / key
    path.mkdir(parents=True, exist_ok=True)
    return path
