"""The exceptions of xpu_opt. Every message starts with `xpu_opt:` and its
first line names the cause; details (the compiler's full output, a command
that repeats the error) follow on later lines."""


class CompileError(RuntimeError):
    """The module cannot be compiled: torch.export, torch-mlir, xpu-run or
    the linker refused it."""


class UnsupportedOperationError(CompileError):
    """The module uses an operation xpu-opt cannot compile (torch.sort,
    torch.topk, torch.cumsum, torch.nonzero, index_put, ...).

    `operations` lists (torch operation, source location) pairs, so that a
    caller (a torch.compile backend, say) can fall back for those parts."""

    def __init__(self, message, operations=()):
        super().__init__(message)
        self.operations = list(operations)


class TargetUnavailable(RuntimeError):
    """The target exists but this build or machine cannot run it (its
    runtime library was not built or does not load, or no device)."""


class DeviceError(RuntimeError):
    """The device runtime failed while a compiled module ran (the message is
    the runtime's). The call's results do not exist; the runtime is usable
    again for the next call when the failure was not permanent."""
