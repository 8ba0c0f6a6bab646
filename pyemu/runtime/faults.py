"""Kernel faults as records, worded by each facade in its own terms.

The core keeps each fault it reports as a record (csrc/fault.c,
pyemu_fault_info): its kind, the kernel, the block and thread, the address,
the nearest allocation and the offset in it (with the call that freed it,
for a use after free), the barrier's site.  The failed command and the
sticky error carry the record's text in CUDA's words; `lookup(message)`
finds the record again by that text, and `word(message, terms)` writes it
in a facade's terms (CUDA_TERMS, OPENCL_TERMS).  A message that is no
fault's (a refused launch, a failed copy) is left as it is.
"""
from __future__ import annotations

from dataclasses import dataclass

from .core import ffi, lib

ACCESS, MISALIGNED, ARITHMETIC, INSTRUCTION, STACK, SHARED, TIMEOUT, INTERRUPT, BARRIER, \
    ASSERT, OTHER = range(1, 12)


@dataclass(frozen=True)
class Terms:
    """What one API calls the things a fault message names."""
    block: str          # a thread block / work-group
    thread: str         # a thread / work-item
    threads: str
    global_ids: bool    # name the global id beside the local one (OpenCL)
    sync: str           # the barrier call
    dyn_smem: str       # shared memory (static, then dynamic) / __local memory
    warp: str = "warp"  # a warp / sub-group, and its lanes
    lane: str = "lane"
    lanes: str = "lane(s)"
    rule: str = "every lane named in a warp collective's mask must reach the same collective"
    collective: str = ""   # '': a collective by its CUDA name; else this instead
    masks: bool = True     # say the collective's mask


_RULE = "every work-item of a sub-group must reach the same sub-group function"
CUDA_TERMS = Terms("block", "thread", "threads", False, "__syncthreads()",
                   "shared memory")
OPENCL_TERMS = Terms("work-group", "work-item", "work-items", True, "barrier()",
                     "__local memory", "sub-group", "sub-group local id",
                     "sub-group local id(s)", _RULE, "a sub-group function", False)


def _dim(v) -> str:
    return f"({v[0]},{v[1]},{v[2]})"


@dataclass(frozen=True)
class Fault:
    """One fault the core reported (pyemu_fault_info)."""
    code: int            # the PYEMU_E_* the launch failed with
    kind: int            # ACCESS, BARRIER, ... (PYEMU_FAULT_*)
    is_kernel: bool      # False: a copy or fill command faulted
    kernel: str
    block: tuple         # blockIdx / get_group_id
    thread: tuple        # threadIdx / get_local_id
    block_dim: tuple     # blockDim / get_local_size
    offset: tuple        # OpenCL's global work offset
    address: int         # 0 when the fault has none
    where: str           # the nearest allocation and the offset in it
    site: str            # the barrier's file:line, "" if none
    detail: str          # what happened, its terms written "\x01" and a letter

    def words(self, terms: Terms) -> str:
        """The fault's sentence in `terms`."""
        detail = _in_terms(self.detail, terms)
        stopped = self.kind in (TIMEOUT, INTERRUPT)
        ids = ""
        if terms.global_ids and self.is_kernel:
            ids = f" (local id; global id {_dim(self.global_id)})"
        return (f"{'kernel' if self.is_kernel else 'command'} '{self.kernel}' "
                f"{'was stopped' if stopped else 'failed'} in {terms.block} {_dim(self.block)}, "
                f"{terms.thread} {_dim(self.thread)}{ids}: {detail}")

    @property
    def global_id(self) -> tuple:
        """OpenCL's get_global_id of the faulting work-item."""
        return tuple(o + b * d + t for o, b, d, t in
                     zip(self.offset, self.block, self.block_dim, self.thread))


def _in_terms(detail: str, terms: Terms) -> str:
    """A record's detail with its terms ("\x01" and a letter, PYEMU_T_* in
    csrc/core.h) in `terms`: 'o' comes before a collective's CUDA name
    (up to a space or ','), 'c' before a mask's words (up to their ')')."""
    table = {"b": terms.block, "t": terms.thread, "T": terms.threads, "s": terms.sync,
             "d": terms.dyn_smem, "w": terms.warp, "l": terms.lane, "L": terms.lanes,
             "r": terms.rule}
    parts = detail.split("\x01")
    out = [parts[0]]
    for p in parts[1:]:
        letter, rest = p[:1], p[1:]
        if letter == "o":
            cut = min((i for i in (rest.find(" "), rest.find(",")) if i >= 0), default=len(rest))
            out.append(terms.collective + rest[cut:] if terms.collective else rest)
        elif letter == "c":
            out.append(rest if terms.masks or ")" not in rest else rest[rest.index(")") + 1:])
        else:
            out.append(table.get(letter, "?") + rest)
    return "".join(out)


def _text(field) -> str:
    return ffi.string(field).decode("utf-8", "replace")


def lookup(message: str):
    """The Fault whose text `message` is (or begins with), or None."""
    if not message or not message.startswith(("kernel '", "command '")):
        return None
    info = ffi.new("pyemu_fault_info *")
    if lib.pyemu_fault_find(message.encode("utf-8", "replace"), info):
        return None
    return Fault(info.code, info.kind, bool(info.is_kernel), _text(info.kernel),
                 tuple(info.block), tuple(info.thread), tuple(info.block_dim),
                 tuple(info.offset), info.address, _text(info.where),
                 _text(info.site), _text(info.detail))


def word(message: str, terms: Terms) -> str:
    """message in `terms` when it is a fault's; else message as it is."""
    fault = lookup(message)
    return fault.words(terms) if fault is not None else message


__all__ = ["Fault", "Terms", "CUDA_TERMS", "OPENCL_TERMS", "lookup", "word"]
