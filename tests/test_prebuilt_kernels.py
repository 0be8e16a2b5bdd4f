"""Prebuilt kernels (engine/jit.py): entries compiled in another process for a baseline CPU load
into an empty user cache without compiling, and anything that does not match this process
(numba's version, the engine's sources, a CPU feature the host lacks, a broken entry) is
ignored: the kernel compiles as it would without them.

A tiny module of kernels (one shared, one calling it, one reaching it only through the other,
one plain) stands in for the engine's: the mechanism is the same, and building it costs
seconds. The built zip's own kernels are tested by tests/test_build_install.py."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from test_jit_cache import SHARED_KERNELS

pytest.importorskip("numba")
from engine import jit  # noqa: E402

# test_jit_cache's shared kernel, a kernel calling it and one reaching it only through that one,
# and an integer loop the host's LLVM vectorizes with AVX where it may
KERNELS = SHARED_KERNELS + """

@njit
def isum(a):
    s = 0
    for x in a:
        s += x * 3
    return s
"""

# argv: cache base, kernels folder, prebuilt folder ('' for none), features the host lacks (','),
# then an optional "build" to print the cache folder and tag for a prebuilt folder
RUN = r"""
import json, sys
from engine import jit
base, src, prebuilt, lacks = sys.argv[1:5]
jit.set_cache_base(base)
if prebuilt:
    jit.PREBUILT_DIR = prebuilt
if lacks:
    host = jit._host_cpu_features
    jit._host_cpu_features = lambda: host() - set(lacks.split(","))
sys.path.insert(0, src)
import kern
import numpy as np
a = np.arange(40.0)
kernels = (kern.total, kern.twice, kern.outer, kern.isum)
got = {"outer": kern.outer(a, 3), "twice": kern.twice(a, 5), "isum": int(kern.isum(np.arange(40))),
       "misses": sum(sum(k._cache_misses.values()) for k in kernels),
       "hits": sum(sum(k._cache_hits.values()) for k in kernels),
       "status": jit.prebuilt_status(), "folder": jit.cache_folder()}
if sys.argv[-1] == "build":
    got["tag"] = jit.prebuilt_tag()
    got["asm"] = kern.isum.inspect_asm(kern.isum.signatures[0])
print(json.dumps(got))
"""


def _run(base, src, prebuilt="", lacks="", build=False, cpu="x86-64-v2"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    if build and cpu:
        env.update(jit.baseline_env(cpu))
    out = subprocess.run([sys.executable, "-c", RUN, str(base), str(src), str(prebuilt), lacks]
                         + (["build"] if build else []), cwd=ROOT, capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The kernels compiled for x86-64-v2 in a process of their own, laid out as the build lays
    them out in the zip (one folder with the cache files and TAG.json)."""
    if "popcnt" not in jit._host_cpu_features() or "sse4.2" not in jit._host_cpu_features():
        pytest.skip("this CPU cannot run x86-64-v2 code")
    tmp = tmp_path_factory.mktemp("prebuilt")
    src = tmp / "src"
    src.mkdir()
    (src / "kern.py").write_text(KERNELS)
    got = _run(tmp / "build_cache", src, build=True)
    assert got["misses"] == 4 and got["tag"]["cpu"] == "x86-64-v2"
    tag = dict(got["tag"])
    assert tag["features"] == jit.baseline_env("x86-64-v2")["NUMBA_CPU_FEATURES"]
    folder = tmp / "prebuilt" / f"{tag['python']}-x86-64-v2"
    shutil.copytree(got["folder"], folder)
    (folder / jit.PREBUILT_TAG_FILE).write_text(json.dumps(tag))
    return {"src": src, "prebuilt": tmp / "prebuilt", "folder": folder, "tag": tag, "result": got}


def _variant(built, tmp_path, **changes):
    """A copy of the prebuilt folder with TAG.json fields changed."""
    dst = tmp_path / "prebuilt"
    shutil.copytree(built["prebuilt"], dst)
    tag_file = dst / built["folder"].name / jit.PREBUILT_TAG_FILE
    tag_file.write_text(json.dumps(dict(built["tag"], **changes)))
    return dst


def test_baseline_code_uses_no_avx(built, tmp_path):
    asm = built["result"]["asm"]
    assert "ymm" not in asm and "zmm" not in asm and "vpadd" not in asm
    assert built["tag"]["cpu"] == "x86-64-v2" and "+popcnt" in built["tag"]["features"]
    if "avx2" in jit._host_cpu_features():  # the host's own code for the same loop does use it
        host = _run(tmp_path / "host", built["src"], build=True, cpu="")
        assert "ymm" in host["asm"] or "zmm" in host["asm"]
        assert host["tag"]["cpu"] != "x86-64-v2"


def test_an_empty_cache_loads_the_prebuilt_kernels_without_compiling(built, tmp_path):
    got = _run(tmp_path / "user", built["src"], built["prebuilt"])
    assert got["misses"] == 0 and got["hits"] == 4
    assert [got[k] for k in ("outer", "twice", "isum")] == [built["result"][k] for k in ("outer", "twice", "isum")]
    assert got["status"] == f"Prebuilt kernels: in use ({built['folder'].name})"
    # the prebuilt folder is only read: nothing is copied into the user's cache
    assert not any(p.suffix == ".nbc" for p in (tmp_path / "user").rglob("*"))
    # and without them, the same process compiles and gets the same results
    plain = _run(tmp_path / "plain", built["src"], tmp_path / "none")
    assert plain["misses"] == 4
    assert [plain[k] for k in ("outer", "twice", "isum")] == [got[k] for k in ("outer", "twice", "isum")]
    assert plain["status"].startswith("Prebuilt kernels: none shipped")


@pytest.mark.parametrize("field,value,why", [
    ("numba", "0.0.1", "numba 0.0.1"),
    ("digest", "0123456789abcdef", "digest 0123456789abcdef"),
    ("python", "cp27", "python cp27"),
    ("package", "bl_ext.other.nonogram3d", "package bl_ext.other.nonogram3d"),
    ("cpu", "pentium-mmx", "unknown baseline CPU"),
])
def test_a_mismatched_tag_is_ignored_and_the_kernels_compile(built, tmp_path, field, value, why):
    got = _run(tmp_path / "user", built["src"], _variant(built, tmp_path, **{field: value}))
    assert got["misses"] == 4 and got["hits"] == 0
    assert got["outer"] == built["result"]["outer"]
    assert why in got["status"] and got["status"].startswith("Prebuilt kernels: not used")


def test_a_cpu_without_a_baseline_feature_compiles(built, tmp_path):
    got = _run(tmp_path / "user", built["src"], built["prebuilt"], lacks="popcnt,sse4.2")
    assert got["misses"] == 4 and got["hits"] == 0 and got["outer"] == built["result"]["outer"]
    assert "this CPU lacks popcnt, sse4.2 (x86-64-v2)" in got["status"]


def test_broken_entries_are_ignored(built, tmp_path):
    dst = _variant(built, tmp_path)
    for f in (dst / built["folder"].name).glob("*.nbc"):
        f.write_bytes(b"not a pickle")
    got = _run(tmp_path / "user", built["src"], dst)
    assert got["misses"] == 4 and got["outer"] == built["result"]["outer"]
    (dst / built["folder"].name / jit.PREBUILT_TAG_FILE).write_text("{")
    got = _run(tmp_path / "user2", built["src"], dst)
    assert got["misses"] == 4 and "unreadable" in got["status"]
