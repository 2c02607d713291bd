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
