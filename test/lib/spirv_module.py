#!/usr/bin/env python3
"""A small reader of SPIR-V binaries for the kernel checkers.

It reads what the checkers need and nothing more: entry points with their
execution modes (SubgroupSize, LocalSize), the OpModuleProcessed strings
(the build options xpu-embed-build-options writes), names and import
linkage of functions, and every OpFunctionCall with its arguments.

`Known` evaluates integer and pointer values as far as the module lets it:
an exact value when the value is a constant expression, else the largest
power of two it is known to be a multiple of (a pointer: its byte address).
Kernel pointer arguments are assumed to be `arg_align`-byte aligned (the
buffers the xpu runtimes allocate are). This is enough to check alignment
rules such as those of cl_intel_subgroup_2d_block_io.
"""

import struct

# Opcodes (SPIR-V 1.6 unified specification).
OP_UNDEF = 1
OP_NAME = 5
OP_EXT_INST = 12
OP_ENTRY_POINT = 15
OP_EXECUTION_MODE = 16
OP_TYPE_INT = 21
OP_TYPE_FLOAT = 22
OP_TYPE_VECTOR = 23
OP_TYPE_ARRAY = 28
OP_TYPE_POINTER = 32
OP_CONSTANT = 43
OP_CONSTANT_COMPOSITE = 44
OP_CONSTANT_NULL = 46
OP_FUNCTION = 54
OP_FUNCTION_PARAMETER = 55
OP_FUNCTION_END = 56
OP_FUNCTION_CALL = 57
OP_DECORATE = 71
OP_ACCESS_CHAIN = 65
OP_IN_BOUNDS_ACCESS_CHAIN = 66
OP_PTR_ACCESS_CHAIN = 67
OP_IN_BOUNDS_PTR_ACCESS_CHAIN = 70
OP_COMPOSITE_CONSTRUCT = 80
OP_COMPOSITE_EXTRACT = 81
OP_COMPOSITE_INSERT = 82
OP_COPY_OBJECT = 83
OP_U_CONVERT = 113
OP_S_CONVERT = 114
OP_CONVERT_PTR_TO_U = 117
OP_CONVERT_U_TO_PTR = 120
OP_PTR_CAST_TO_GENERIC = 121
OP_GENERIC_CAST_TO_PTR = 122
OP_BITCAST = 124
OP_I_ADD = 128
OP_I_SUB = 130
OP_I_MUL = 132
OP_U_DIV = 134
OP_S_DIV = 135
OP_SELECT = 169
OP_SHIFT_RIGHT_LOGICAL = 194
OP_SHIFT_RIGHT_ARITHMETIC = 195
OP_SHIFT_LEFT_LOGICAL = 196
OP_BITWISE_OR = 197
OP_BITWISE_XOR = 198
OP_BITWISE_AND = 199
OP_PHI = 245
OP_MODULE_PROCESSED = 330

EXECUTION_MODE_LOCAL_SIZE = 17
EXECUTION_MODE_SUBGROUP_SIZE = 35
DECORATION_LINKAGE_ATTRIBUTES = 41
MAGIC = 0x07230203

# OpExtInst (OpenCL.std) that return one of their operands.
OPENCL_MIN_MAX = {"s_max", "u_max", "s_min", "u_min"}
OPENCL_EXT_NAMES = {156: "s_max", 157: "u_max", 158: "s_min", 159: "u_min"}


def decode_string(words):
    raw = b"".join(struct.pack("<I", w) for w in words)
    end = raw.find(b"\0")
    text = raw[:end if end >= 0 else len(raw)].decode("utf-8", "replace")
    return text, (end // 4 + 1) if end >= 0 else len(words)


class Module:
    def __init__(self, data):
        if len(data) < 20 or len(data) % 4:
            raise ValueError("not a SPIR-V binary (size %d)" % len(data))
        words = struct.unpack("<%dI" % (len(data) // 4), data)
        if words[0] != MAGIC:
            raise ValueError("not a SPIR-V binary (magic %#x)" % words[0])
        self.version = ((words[1] >> 16) & 0xff, (words[1] >> 8) & 0xff)
        self.names = {}
        self.imports = {}
        self.entry_points = {}  # id -> name
        self.execution_modes = {}  # id -> {mode: [literals]}
        self.processed = []
        self.types = {}  # id -> (opcode, operands)
        self.defs = {}  # id -> (opcode, type id, operands)
        self.calls = []  # (function id containing the call, callee, args)
        self.params = {}  # id -> function id
        self.functions = []
        self.ext_imports = {}
        current = None
        at = 5
        while at < len(words):
            count, opcode = words[at] >> 16, words[at] & 0xffff
            if count == 0 or at + count > len(words):
                raise ValueError("malformed instruction at word %d" % at)
            ops = list(words[at + 1:at + count])
            at += count
            if opcode == OP_NAME:
                self.names[ops[0]] = decode_string(ops[1:])[0]
            elif opcode == 11:  # OpExtInstImport
                self.ext_imports[ops[0]] = decode_string(ops[1:])[0]
            elif opcode == OP_ENTRY_POINT:
                name, used = decode_string(ops[2:])
                self.entry_points[ops[1]] = name
            elif opcode == OP_EXECUTION_MODE:
                self.execution_modes.setdefault(ops[0], {})[ops[1]] = ops[2:]
            elif opcode == OP_MODULE_PROCESSED:
                self.processed.append(decode_string(ops)[0])
            elif opcode == OP_DECORATE and len(ops) > 2 and \
                    ops[1] == DECORATION_LINKAGE_ATTRIBUTES:
                name, used = decode_string(ops[2:])
                linkage = ops[2 + used] if 2 + used < len(ops) else None
                if linkage == 1:  # Import
                    self.imports[ops[0]] = name
            elif opcode in (OP_TYPE_INT, OP_TYPE_FLOAT, OP_TYPE_VECTOR,
                            OP_TYPE_ARRAY, OP_TYPE_POINTER, 30, 19, 20):
                self.types[ops[0]] = (opcode, ops[1:])
            elif opcode == OP_FUNCTION:
                current = ops[1]
                self.functions.append(current)
                self.defs[ops[1]] = (opcode, ops[0], ops[2:])
            elif opcode == OP_FUNCTION_END:
                current = None
            elif opcode == OP_FUNCTION_PARAMETER:
                self.params[ops[1]] = current
                self.defs[ops[1]] = (opcode, ops[0], [])
            elif opcode == OP_FUNCTION_CALL:
                self.calls.append((current, ops[2], ops[3:]))
                self.defs[ops[1]] = (opcode, ops[0], ops[2:])
            elif opcode in VALUE_OPS and len(ops) >= 2:
                self.defs[ops[1]] = (opcode, ops[0], ops[2:])

    def function_name(self, fid):
        return self.imports.get(fid) or self.names.get(fid) or "%%%d" % fid

    def build_options(self, prefix="xpu.build-options: "):
        for text in self.processed:
            if text.startswith(prefix):
                return text[len(prefix):]
        return ""

    def subgroup_size(self, entry):
        modes = self.execution_modes.get(entry, {})
        values = modes.get(EXECUTION_MODE_SUBGROUP_SIZE)
        return values[0] if values else None

    def local_size(self, entry):
        return self.execution_modes.get(entry, {}).get(
            EXECUTION_MODE_LOCAL_SIZE)

    def type_bits(self, tid):
        """Bit width of an integer or float type, 64 for pointers."""
        kind, ops = self.types.get(tid, (None, []))
        if kind in (OP_TYPE_INT, OP_TYPE_FLOAT):
            return ops[0]
        if kind == OP_TYPE_POINTER:
            return 64
        if kind == OP_TYPE_VECTOR:
            return self.type_bits(ops[0])
        return 64

    def type_bytes(self, tid):
        """Size in bytes of a type (None if unknown)."""
        kind, ops = self.types.get(tid, (None, []))
        if kind in (OP_TYPE_INT, OP_TYPE_FLOAT):
            return ops[0] // 8
        if kind == OP_TYPE_VECTOR:
            inner = self.type_bytes(ops[0])
            return inner * ops[1] if inner else None
        if kind == OP_TYPE_ARRAY:
            inner = self.type_bytes(ops[0])
            length = self.defs.get(ops[1])
            if inner and length and length[0] == OP_CONSTANT:
                return inner * length[2][0]
            return None
        if kind == OP_TYPE_POINTER:
            return 8
        return None

    def pointee(self, tid):
        kind, ops = self.types.get(tid, (None, []))
        return ops[1] if kind == OP_TYPE_POINTER else None


# Instructions with <result type> <result id> that the evaluator reads (all
# others are unknown values to it).
VALUE_OPS = {
    OP_UNDEF, OP_EXT_INST, OP_CONSTANT, OP_CONSTANT_COMPOSITE,
    OP_CONSTANT_NULL, OP_ACCESS_CHAIN, OP_IN_BOUNDS_ACCESS_CHAIN,
    OP_PTR_ACCESS_CHAIN, OP_IN_BOUNDS_PTR_ACCESS_CHAIN,
    OP_COMPOSITE_CONSTRUCT, OP_COMPOSITE_EXTRACT, OP_COMPOSITE_INSERT,
    OP_COPY_OBJECT, OP_U_CONVERT, OP_S_CONVERT, OP_CONVERT_PTR_TO_U,
    OP_CONVERT_U_TO_PTR, OP_PTR_CAST_TO_GENERIC, OP_GENERIC_CAST_TO_PTR,
    OP_BITCAST, OP_I_ADD, OP_I_SUB, OP_I_MUL, OP_U_DIV, OP_S_DIV, OP_SELECT,
    OP_SHIFT_RIGHT_LOGICAL, OP_SHIFT_RIGHT_ARITHMETIC, OP_SHIFT_LEFT_LOGICAL,
    OP_BITWISE_OR, OP_BITWISE_XOR, OP_BITWISE_AND, OP_PHI,
}


# Alignment of a value known only to be some integer.
UNKNOWN = 1
# Exact zero is a multiple of every power of two we ask about.
MAX_ALIGN = 1 << 62


def low_bit(value):
    return value & -value if value else MAX_ALIGN


class Known:
    """Exact value (int) or known power-of-two alignment of SPIR-V values."""

    def __init__(self, module, arg_align=64):
        self.m = module
        self.arg_align = arg_align
        self.cache = {}
        self._solve_phis()

    # A value is ("exact", v) or ("align", a); vectors are lists of those.
    def get(self, vid):
        if vid in self.cache:
            return self.cache[vid]
        self.cache[vid] = ("align", UNKNOWN)  # breaks cycles pessimistically
        value = self._eval(vid)
        self.cache[vid] = value
        return value

    def alignment(self, value):
        if value[0] == "exact":
            return low_bit(value[1])
        return value[1]

    def exact(self, value):
        return value[1] if value[0] == "exact" else None

    def _meet(self, a, b):
        if a is None:
            return b
        if isinstance(a, list) or isinstance(b, list):
            if isinstance(a, list) and isinstance(b, list) and \
                    len(a) == len(b):
                return [self._meet(x, y) for x, y in zip(a, b)]
            return ("align", UNKNOWN)
        if a == b:
            return a
        return ("align", min(self.alignment(a), self.alignment(b)))

    def _solve_phis(self):
        # Optimistic fixed point over the phis: start from their incoming
        # constants and widen until nothing changes.
        phis = [vid for vid, (op, _, _) in self.m.defs.items()
                if op == OP_PHI]
        state = {vid: None for vid in phis}
        for _ in range(32):
            self.cache = {vid: (state[vid] if state[vid] is not None
                                else ("align", MAX_ALIGN)) for vid in phis}
            changed = False
            for vid in phis:
                ops = self.m.defs[vid][2]
                value = None
                for incoming in ops[0::2]:
                    value = self._meet(value, self._eval_nocache(incoming))
                if value != state[vid]:
                    state[vid] = value
                    changed = True
            if not changed:
                break
        self.cache = {vid: (state[vid] if state[vid] is not None
                            else ("align", UNKNOWN)) for vid in phis}
        if changed:  # no fixed point: know nothing about the phis
            self.cache = {vid: ("align", UNKNOWN) for vid in phis}

    def _eval_nocache(self, vid):
        if vid in self.cache:
            return self.cache[vid]
        saved = dict(self.cache)
        value = self.get(vid)
        # Keep phi guesses only: other values may depend on them.
        self.cache = saved
        return value

    def _eval(self, vid):
        d = self.m.defs.get(vid)
        if d is None:
            return ("align", UNKNOWN)
        op, tid, ops = d
        bits = self.m.type_bits(tid)
        mask = (1 << bits) - 1
        if op == OP_CONSTANT:
            value = ops[0] | (ops[1] << 32 if len(ops) > 1 else 0)
            return ("exact", value & mask)
        if op == OP_CONSTANT_NULL:
            kind, tops = self.m.types.get(tid, (None, []))
            if kind == OP_TYPE_VECTOR:
                return [("exact", 0)] * tops[1]
            return ("exact", 0)
        if op == OP_UNDEF:
            kind, tops = self.m.types.get(tid, (None, []))
            if kind == OP_TYPE_VECTOR:
                return [("align", UNKNOWN)] * tops[1]
            return ("align", UNKNOWN)
        if op in (OP_CONSTANT_COMPOSITE, OP_COMPOSITE_CONSTRUCT):
            return [self.get(c) for c in ops]
        if op == OP_COMPOSITE_INSERT:
            obj, comp, index = ops[0], ops[1], ops[2]
            base = self.get(comp)
            if not isinstance(base, list):
                return ("align", UNKNOWN)
            base = list(base)
            if index < len(base):
                base[index] = self.get(obj)
            return base
        if op == OP_COMPOSITE_EXTRACT:
            base = self.get(ops[0])
            if isinstance(base, list) and ops[1] < len(base):
                return base[ops[1]]
            return ("align", UNKNOWN)
        if op == OP_FUNCTION_PARAMETER:
            if self.m.types.get(tid, (None,))[0] == OP_TYPE_POINTER:
                return ("align", self.arg_align)
            return ("align", UNKNOWN)
        if op in (OP_COPY_OBJECT, OP_U_CONVERT, OP_S_CONVERT, OP_BITCAST,
                  OP_CONVERT_PTR_TO_U, OP_CONVERT_U_TO_PTR,
                  OP_PTR_CAST_TO_GENERIC, OP_GENERIC_CAST_TO_PTR):
            value = self.get(ops[0])
            if isinstance(value, list):
                return value
            if value[0] == "exact":
                return ("exact", value[1] & mask)
            return value
        if op in (OP_PTR_ACCESS_CHAIN, OP_IN_BOUNDS_PTR_ACCESS_CHAIN):
            base = self.get(ops[0])
            size = self.m.type_bytes(self.m.pointee(self.m.defs.get(
                ops[0], (None, tid, []))[1]) or 0)
            index = self.get(ops[1])
            if size is None or isinstance(index, list) or \
                    isinstance(base, list):
                return ("align", UNKNOWN)
            offset = self._mul(index, ("exact", size), 64)
            result = self._add(base, offset, 64)
            if len(ops) > 2:  # further indices into aggregates
                return ("align", min(self.alignment(result), UNKNOWN))
            return result
        if op == OP_SELECT:
            return self._meet(self.get(ops[1]), self.get(ops[2]))
        if op == OP_PHI:
            value = None
            for incoming in ops[0::2]:
                value = self._meet(value, self.get(incoming))
            return value
        if op == OP_EXT_INST:
            name = OPENCL_EXT_NAMES.get(ops[1]) \
                if self.m.ext_imports.get(ops[0]) == "OpenCL.std" else None
            if name in OPENCL_MIN_MAX:
                return self._meet(self.get(ops[2]), self.get(ops[3]))
            return ("align", UNKNOWN)
        if op in (OP_I_ADD, OP_I_SUB, OP_I_MUL, OP_SHIFT_LEFT_LOGICAL,
                  OP_SHIFT_RIGHT_LOGICAL, OP_SHIFT_RIGHT_ARITHMETIC,
                  OP_BITWISE_AND, OP_BITWISE_OR, OP_BITWISE_XOR, OP_U_DIV,
                  OP_S_DIV):
            a, b = self.get(ops[0]), self.get(ops[1])
            if isinstance(a, list) or isinstance(b, list):
                if isinstance(a, list) and isinstance(b, list):
                    return [self._binary(op, x, y, bits)
                            for x, y in zip(a, b)]
                return ("align", UNKNOWN)
            return self._binary(op, a, b, bits)
        return ("align", UNKNOWN)

    def _add(self, a, b, bits, sub=False):
        mask = (1 << bits) - 1
        if a[0] == "exact" and b[0] == "exact":
            return ("exact", (a[1] - b[1] if sub else a[1] + b[1]) & mask)
        return ("align", min(self.alignment(a), self.alignment(b), 1 << bits))

    def _mul(self, a, b, bits):
        mask = (1 << bits) - 1
        if a[0] == "exact" and b[0] == "exact":
            return ("exact", (a[1] * b[1]) & mask)
        return ("align", min(self.alignment(a) * self.alignment(b),
                             1 << bits))

    def _binary(self, op, a, b, bits):
        mask = (1 << bits) - 1
        if op == OP_I_ADD:
            return self._add(a, b, bits)
        if op == OP_I_SUB:
            return self._add(a, b, bits, sub=True)
        if op == OP_I_MUL:
            return self._mul(a, b, bits)
        if op == OP_SHIFT_LEFT_LOGICAL:
            if b[0] != "exact":
                return ("align", UNKNOWN)
            return self._mul(a, ("exact", 1 << (b[1] % bits)), bits)
        if a[0] == "exact" and b[0] == "exact":
            x, y = a[1], b[1]
            if op == OP_SHIFT_RIGHT_LOGICAL:
                return ("exact", (x >> (y % bits)) & mask)
            if op == OP_BITWISE_AND:
                return ("exact", x & y)
            if op == OP_BITWISE_OR:
                return ("exact", x | y)
            if op == OP_BITWISE_XOR:
                return ("exact", x ^ y)
            if op == OP_U_DIV and y:
                return ("exact", x // y)
            return ("align", UNKNOWN)
        if op == OP_BITWISE_AND:
            return ("align", max(self.alignment(a), self.alignment(b)))
        if op in (OP_BITWISE_OR, OP_BITWISE_XOR):
            return ("align", min(self.alignment(a), self.alignment(b)))
        if op == OP_SHIFT_RIGHT_LOGICAL and b[0] == "exact":
            return ("align", max(self.alignment(a) >> (b[1] % bits), 1))
        return ("align", UNKNOWN)
