"""The Pythons scripts/build_extension.py compiles each zip's kernels with: by default both zips of
the build's platform get theirs (the other Python's found as the tests find it: the venv of the
newest Blender line of that Python), and a Python that cannot compile them (missing, without
numba, another numba) stops the build with a message, never a zip quietly without kernels."""
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import build_extension  # noqa: E402

THIS = f"cp{sys.version_info[0]}{sys.version_info[1]}"
OTHER = "cp313" if THIS == "cp311" else "cp311"


def test_both_zips_of_the_host_get_a_kernel_python_by_default(monkeypatch):
    if build_extension.host_platform() != "linux-x64":
        pytest.skip("the kernels are built on linux-x64 only here")
    asked = []

    def kernel_python(tag, root=build_extension.ROOT):
        asked.append(tag)
        return f"/pythons/{tag}"
    monkeypatch.setattr(build_extension, "kernel_python", kernel_python)
    got = build_extension.kernel_pythons_for(["linux-x64", "windows-x64"], [sys.executable])
    assert got == [sys.executable, f"/pythons/{OTHER}"] and asked == [OTHER]
    # another platform's zips get none: nothing to find
    assert build_extension.kernel_pythons_for(["windows-x64"], [sys.executable]) == [sys.executable]


def test_a_missing_kernel_python_stops_the_build_saying_what_to_install(monkeypatch, capfd):
    version = build_extension.python_version_of_tag(OTHER)
    monkeypatch.setenv("PYTHON" + version.replace(".", ""), "/no/such/python")
    with pytest.raises(build_extension.BuildError, match=f"no Python {version} with numba to compile "
                                                         f"the {OTHER} zip's kernels"):
        build_extension.kernel_python(OTHER)
    assert f"needs Python {version}" in capfd.readouterr().err  # line_venv.sh's own message


def test_a_kernel_python_without_numba_is_refused(tmp_path):
    bare = tmp_path / "python"  # this Python without its site-packages: no numpy, no numba
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")
    bare.chmod(0o755)
    with pytest.raises(build_extension.BuildError, match="cannot compile the prebuilt kernels \\(numba unavailable: "
                                                         ".*No module named 'numba'\\).*install them into it"):
        build_extension._prebuild_run(str(bare), ROOT, "bl_ext.user_default.nonogram3d", "", (), "x86-64-v2")


def test_a_kernel_python_with_another_numba_is_refused(monkeypatch, tmp_path):
    def probe(python, source, package, base, parts, cpu, cpu_env=None):
        return {"tag": {"python": THIS, "numba": "0.0.1", "llvmlite": "0.50.0"}, "folder": "",
                "cpu_env": {}, "prebuilt": ""}
    monkeypatch.setattr(build_extension, "_prebuild_run", probe)
    wheels = [f"./wheels/numba-0.68.1-{THIS}-{THIS}-manylinux_2_28_x86_64.whl",
              f"./wheels/llvmlite-0.50.0-{THIS}-{THIS}-manylinux_2_28_x86_64.whl"]
    with pytest.raises(build_extension.BuildError, match="has numba 0.0.1 / llvmlite 0.50.0 .* the zip ships"):
        build_extension.prebuild_kernels(tmp_path, {"id": "nonogram3d"}, "linux-x64", wheels,
                                         ["/some/python"], str(tmp_path))
    assert not os.listdir(tmp_path)
