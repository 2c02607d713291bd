import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from rlfw.machine import native_bf16

SAPPHIRE_RAPIDS = "flags\t\t: fpu sse2 avx2 avx512f avx512bw avx512_bf16 amx_bf16 amx_tile\n"
ZEN3 = "flags\t\t: fpu sse2 avx2 fma\n"


@pytest.mark.parametrize(
    "cpuinfo, found", [(SAPPHIRE_RAPIDS, "amx_bf16, avx512_bf16"), (ZEN3, None), ("processor : 0\n", None)]
)
def test_native_bf16_reads_the_cpu_flags(monkeypatch, cpuinfo, found):
    monkeypatch.setattr("rlfw.machine.Path", lambda _: SimpleNamespace(read_text=lambda: cpuinfo))
    for cap in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"):
        monkeypatch.delenv(cap, raising=False)
    assert native_bf16() == found


@pytest.mark.parametrize(
    "cap, found",
    [
        (None, "amx_bf16, avx512_bf16"),
        ("AVX2", None),
        ("avx512_core_vnni", None),
        ("AVX512_CORE_BF16", "avx512_bf16"),
        ("AVX512_CORE_AMX", "amx_bf16, avx512_bf16"),
        ("ALL", "amx_bf16, avx512_bf16"),
    ],
)
def test_native_bf16_leaves_out_what_a_onednn_isa_cap_keeps_torch_from(monkeypatch, cap, found):
    monkeypatch.setattr("rlfw.machine.Path", lambda _: SimpleNamespace(read_text=lambda: SAPPHIRE_RAPIDS))
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    if cap is None:
        monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    else:
        monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", cap)
    assert native_bf16() == found


@pytest.mark.parametrize(
    "env, expected",
    [({}, "10000"), ({"OMP_WAIT_POLICY": "PASSIVE"}, None), ({"GOMP_SPINCOUNT": "5"}, "5")],
)
def test_rlfw_shortens_openmp_spinning_unless_the_user_chose(env, expected):
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    code = "import os, rlfw; print(os.environ.get('GOMP_SPINCOUNT'))"
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(expected)


# A 20 MiB block, as one of a pixel update's: where glibc put it (bytes in mmapped blocks, before and
# after), and the heap's free bytes once it is freed (glibc's mallinfo2).
BLOCK = """
import ctypes, sys, torch
from rlfw.machine import keep_freed_memory

class Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Mallinfo2
kept = keep_freed_memory() if sys.argv[1] == "keep" else False
before = libc.mallinfo2().hblkhd
block = torch.empty(20 << 20, dtype=torch.uint8).fill_(1)
mapped = libc.mallinfo2().hblkhd - before
del block
print(kept, mapped >> 20, libc.mallinfo2().fordblks >> 20)
"""


def block_20mib(mode: str, **env: str) -> tuple[bool, int, int]:
    """Whether rlfw's setting took, the MiB mapped for the block, the heap's free MiB after it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run(
        [sys.executable, "-c", BLOCK, mode], env={**clean, **env}, capture_output=True, text=True, check=True
    )
    kept, mapped, free = out.stdout.split()
    return kept == "True", int(mapped), int(free)


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc")
def test_large_blocks_come_from_the_heap_and_stay_there_once_freed():
    kept, mapped, _ = block_20mib("default")
    assert (kept, mapped) == (False, 20)  # glibc's default: mapped fresh, unmapped when freed
    kept, mapped, free = block_20mib("keep")
    assert (kept, mapped) == (True, 0)
    assert free >= 20  # kept for the next block, not given back to the kernel


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc")
def test_a_users_malloc_setting_wins():
    assert block_20mib("keep", MALLOC_MMAP_THRESHOLD_="131072")[:2] == (False, 20)
