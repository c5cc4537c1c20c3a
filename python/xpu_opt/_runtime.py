"""A device runtime library (runtime/<api>/) loaded into this process.

The runtimes never exit the process: a failure is recorded in the library's
error channel (xpuRuntimeGetLastError, see
runtime/include/xpu/Runtime/XPURuntime.h), which this module reads after
every sequence of calls and turns into a DeviceError. The channel belongs to
the library, so every use of one runtime holds its lock: calls from several
threads (several compiled modules, or one from several threads) take turns,
and an error is reported to the call that caused it.
"""

import ctypes
import threading

import torch

from ._errors import DeviceError

_MESSAGE_BYTES = 8192


class KernelProfile(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("launches", ctypes.c_uint64),
                ("deviceNanoseconds", ctypes.c_int64)]


class Runtime:
    """One runtime library, loaded once per process (see get())."""

    _loaded = {}
    _loaded_lock = threading.Lock()

    @classmethod
    def get(cls, path):
        """The runtime library at `path`; OSError if it does not load (the
        CUDA runtime without the NVIDIA driver's libcuda.so.1, say)."""
        key = str(path)
        with cls._loaded_lock:
            if key not in cls._loaded:
                cls._loaded[key] = cls(key)
            return cls._loaded[key]

    def __init__(self, path):
        self.path = path
        self.lib = lib = ctypes.CDLL(path)
        lib.mgpuMemAlloc.restype = ctypes.c_void_p
        lib.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p,
                                     ctypes.c_bool]
        lib.mgpuMemFree.restype = None
        lib.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.xpuRuntimeGetLastError.restype = ctypes.c_int
        lib.xpuRuntimeGetLastError.argtypes = [ctypes.c_char_p,
                                               ctypes.c_size_t]
        lib.xpuRuntimeClearError.restype = None
        lib.xpuRuntimeSetErrorPrinting.argtypes = [ctypes.c_int]
        lib.xpuRuntimeGetDeviceCount.restype = ctypes.c_int
        lib.xpuRuntimeProfileStart.restype = None
        lib.xpuRuntimeProfileStop.restype = ctypes.c_int
        lib.xpuRuntimeProfileStop.argtypes = [ctypes.POINTER(KernelProfile),
                                              ctypes.c_int]
        # Errors become exceptions here: the runtime prints nothing.
        lib.xpuRuntimeSetErrorPrinting(0)
        self.lock = threading.RLock()
        self._devices = None

    # Errors -----------------------------------------------------------------

    def last_error(self):
        """The recorded error and clears it, or None."""
        buffer = ctypes.create_string_buffer(_MESSAGE_BYTES)
        if self.lib.xpuRuntimeGetLastError(buffer, _MESSAGE_BYTES) <= 0:
            return None
        self.lib.xpuRuntimeClearError()
        return buffer.value.decode(errors="replace")

    def check(self, what):
        """Raises DeviceError if the runtime recorded an error (during
        `what`)."""
        message = self.last_error()
        if message:
            raise DeviceError(f"xpu_opt: {what} failed: {message}")

    def device_count(self):
        """(number of devices, None) or (0, why there is none)."""
        with self.lock:
            if self._devices is None:
                self.last_error()  # an earlier, unrelated error
                count = self.lib.xpuRuntimeGetDeviceCount()
                message = self.last_error()
                if count < 0 or message:
                    self._devices = (0, message or "the driver cannot be used")
                elif count == 0:
                    self._devices = (0, "no device found")
                else:
                    self._devices = (count, None)
            return self._devices

    # Memory -----------------------------------------------------------------

    def alloc(self, nbytes):
        with self.lock:
            ptr = self.lib.mgpuMemAlloc(max(nbytes, 1), None, True)
            self.check(f"allocating {nbytes} bytes of device memory")
            return ptr

    def free(self, ptr):
        with self.lock:
            self.lib.mgpuMemFree(ptr, None)
            self.last_error()  # nothing to report to anyone

    # Profiling --------------------------------------------------------------

    def profile_start(self):
        with self.lock:
            self.lib.xpuRuntimeProfileStart()
            self.check("starting the kernel profile")

    def profile_stop(self):
        entries = (KernelProfile * 4096)()
        with self.lock:
            n = self.lib.xpuRuntimeProfileStop(entries, len(entries))
            self.check("reading the kernel profile")
        return [(entries[i].name.decode(), entries[i].launches,
                 entries[i].deviceNanoseconds) for i in range(min(n, 4096))]


class DeviceBuffer:
    """Host-shared memory of a runtime holding one tensor (its host view is
    `tensor`), and its memref descriptor."""

    def __init__(self, runtime, shape, dtype, descriptor):
        self.runtime = runtime
        self.shape = tuple(shape)
        self.dtype = dtype
        numel = 1
        for d in self.shape:
            numel *= d
        self.nbytes = numel * torch.empty((), dtype=dtype).element_size()
        self.ptr = runtime.alloc(self.nbytes)
        if self.nbytes:
            raw = (ctypes.c_byte * self.nbytes).from_address(self.ptr)
            self.tensor = torch.frombuffer(raw, dtype=torch.uint8).view(
                dtype).view(self.shape)
        else:
            self.tensor = torch.empty(self.shape, dtype=dtype)
        self.desc = descriptor(self.ptr, self.shape)

    def write(self, tensor):
        self.tensor.copy_(tensor)

    def read(self):
        return self.tensor.clone()

    def __del__(self):
        try:
            self.runtime.free(self.ptr)
        except Exception:  # interpreter shutdown
            pass
