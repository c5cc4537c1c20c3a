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
import os
import threading

import torch

from ._errors import DeviceError

_MESSAGE_BYTES = 8192


class KernelProfile(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("launches", ctypes.c_uint64),
                ("deviceNanoseconds", ctypes.c_int64)]


# Every function of a runtime library that xpu_opt calls, with the targets
# whose runtime must export it (test/Runtime/exports.test checks them with
# nm -D against this list and XPURuntime.h).
BOUND_FUNCTIONS = {
    "mgpuMemAlloc": ("opencl", "levelzero", "cuda"),
    "mgpuMemFree": ("opencl", "levelzero", "cuda"),
    "xpuRuntimeGetLastError": ("opencl", "levelzero", "cuda"),
    "xpuRuntimeClearError": ("opencl", "levelzero", "cuda"),
    "xpuRuntimeSetErrorPrinting": ("opencl", "levelzero", "cuda"),
    "xpuRuntimeGetDeviceCount": ("opencl", "levelzero", "cuda"),
    "xpuRuntimeSelectDevice": ("opencl", "levelzero", "cuda"),
    "xpuRuntimeProfileStart": ("opencl", "levelzero", "cuda"),
    "xpuRuntimeProfileStop": ("opencl", "levelzero", "cuda"),
    "xpuCudaSetStream": ("cuda",),
    "xpuOpenCLWriteSPIR": ("opencl",),
    "xpuOpenCLAddSPIRDirectory": ("opencl",),
}


class Runtime:
    """One runtime library, loaded once per process (see get())."""

    _loaded = {}
    _loaded_lock = threading.Lock()

    @classmethod
    def get(cls, path):
        """The runtime library at `path`, or the one of that name already in
        this process; OSError if it does not load (the CUDA runtime without
        the NVIDIA driver's libcuda.so.1, say).

        One per file name (the library's soname): compiled libraries link
        the runtime by that name, and the dynamic linker hands them the copy
        loaded first, whichever directory it came from (the build tree's or
        a package's). A second copy would have its own device state and
        error channel, which the compiled code would never use."""
        name = os.path.basename(str(path))
        with cls._loaded_lock:
            if name not in cls._loaded:
                try:  # loaded already: by a package's model.so, say
                    ctypes.CDLL(name, mode=os.RTLD_NOLOAD)
                    where = name
                except OSError:
                    where = str(path)
                cls._loaded[name] = cls(where)
            return cls._loaded[name]

    def __init__(self, path):
        self.path = path
        self.lib = lib = ctypes.CDLL(path)
        self.name = os.path.basename(path)
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
        lib.xpuRuntimeSelectDevice.restype = None
        lib.xpuRuntimeSelectDevice.argtypes = [ctypes.c_int]
        self.is_cuda = hasattr(lib, "xpuCudaSetStream")
        if self.is_cuda:
            lib.xpuCudaSetStream.restype = None
            lib.xpuCudaSetStream.argtypes = [ctypes.c_void_p]
        self.is_opencl = hasattr(lib, "xpuOpenCLWriteSPIR")
        if self.is_opencl:
            lib.xpuOpenCLWriteSPIR.restype = ctypes.c_int
            lib.xpuOpenCLWriteSPIR.argtypes = [ctypes.c_char_p]
            lib.xpuOpenCLAddSPIRDirectory.restype = None
            lib.xpuOpenCLAddSPIRDirectory.argtypes = [ctypes.c_char_p]
        # Errors become exceptions here: the runtime prints nothing.
        lib.xpuRuntimeSetErrorPrinting(0)
        self.lock = threading.RLock()
        self._devices = None
        self.device = None  # the device index selected (CUDA)
        self._stream = None  # the stream set_stream set last (CUDA)

    # Errors -----------------------------------------------------------------

    def last_error(self):
        """The recorded error and clears it, or None. Runs twice in every
        call of a compiled module: without an error it asks for the
        message's length only (no buffer)."""
        if self.lib.xpuRuntimeGetLastError(None, 0) <= 0:
            return None
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

    def select_device(self, index):
        """Runs on device `index` (CUDA: the caller's tensors' device); an
        error once the runtime runs on another one."""
        with self.lock:
            if self.device == index:
                return
            if self.device is not None:
                raise ValueError(
                    f"xpu_opt: this process runs compiled modules on "
                    f"cuda:{self.device}; tensors on cuda:{index} need a "
                    "process of their own (the runtime uses one device)")
            self.last_error()
            self.lib.xpuRuntimeSelectDevice(index)
            self.check(f"selecting device {index}")
            self.device = index

    def set_stream(self, stream):
        """CUDA: runs the next calls on `stream` (a CUstream; 1 is the
        legacy default stream, PyTorch's default). Only this object sets
        the runtime's stream, so a call on the stream already set costs
        nothing."""
        if stream != self._stream:
            self.lib.xpuCudaSetStream(stream)
            self._stream = stream

    # SPIR translations (OpenCL) ---------------------------------------------

    def write_spir(self, directory):
        """Writes the SPIR translations this process made (OpenCL devices
        without SPIR-V IL support) into `directory`; their number."""
        with self.lock:
            n = self.lib.xpuOpenCLWriteSPIR(str(directory).encode())
            self.check(f"writing the SPIR translations into {directory}")
            return n

    def add_spir_directory(self, directory):
        with self.lock:
            self.lib.xpuOpenCLAddSPIRDirectory(str(directory).encode())
            self.check(f"reading the SPIR translations of {directory}")

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
