"""scripts/line_venv.sh and scripts/find_python.sh, the way the test command makes a Blender line's
venv: made with the line's Python, reused while its requirements are unchanged, an interrupted
install finished, a half-installed venv repaired, and a clear message (never another Python)
when the line's Python is missing. A table of one line stands in for scripts/blender_lines.txt,
its requirements a tiny wheel made here (installed with --no-index: no download)."""
import os
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

VERSION = "%d.%d" % sys.version_info[:2]
VAR = "PYTHON" + VERSION.replace(".", "")


def _wheel(folder, version):
    name = f"tinypkg-{version}"
    path = folder / f"{name}-py3-none-any.whl"
    files = {"tinypkg/__init__.py": f"VERSION = {version!r}\n",
             f"{name}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: tinypkg\nVersion: {version}\n",
             f"{name}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{name}.dist-info/RECORD"] = "".join(f"{n},,\n" for n in files) + f"{name}.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as zf:
        for n, text in files.items():
            zf.writestr(n, text)


@pytest.fixture
def line(tmp_path):
    """A line "9.9" of this Python whose requirements pin tinypkg 1.0; run(...) runs line_venv."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for v in ("1.0", "2.0"):
        _wheel(wheels, v)
    req = tmp_path / "requirements-line.txt"
    req.write_text(f"--no-index\n--find-links {wheels}\ntinypkg==1.0\n")
    table = tmp_path / "lines.txt"
    venv = tmp_path / "venv-line"
    table.write_text(f"# line python venv requirements runs\n9.9 {VERSION} {venv} {req} blender\n")

    def run(python=sys.executable, extra=None, line="9.9"):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
        env.update(NONOGRAM_BLENDER_LINES=str(table), PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                   **{VAR: python}, **(extra or {}))
        return subprocess.run(["bash", str(ROOT / "scripts" / "line_venv.sh"), line], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
    return run, venv, req, table


def _version_in(venv):
    return subprocess.run([str(venv / "bin" / "python"), "-c", "import tinypkg; print(tinypkg.VERSION)"],
                          capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(sys.platform == "win32", reason="bash scripts")
def test_made_reused_finished_repaired(line):
    run, venv, req, _table = line
    # made: with this line's Python, its requirements installed; the venv's Python printed
    first = run()
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"{venv}/bin/python"
    assert f"creating {venv}" in first.stderr and "installing" in first.stderr
    assert _version_in(venv) == "1.0" and not (venv / ".installing").exists()
    # reused: nothing installed while the requirements are unchanged
    again = run()
    assert again.returncode == 0 and "installing" not in again.stderr and "creating" not in again.stderr
    # a changed requirements file is installed
    req.write_text(req.read_text().replace("tinypkg==1.0", "tinypkg==2.0"))
    changed = run()
    assert changed.returncode == 0 and "installing" in changed.stderr and _version_in(venv) == "2.0"
    # an install that was interrupted (no stamp, its marker left) is finished, saying so
    (venv / ".requirements.sha256").unlink()
    (venv / ".installing").touch()
    resumed = run()
    assert resumed.returncode == 0, resumed.stderr
    assert "did not finish (interrupted?)" in resumed.stderr and not (venv / ".installing").exists()
    # half-installed with its stamp: a package's files gone; found and installed again
    dist = next(venv.glob("lib/python*/site-packages/tinypkg-2.0.dist-info"))
    for f in dist.iterdir():
        f.unlink()
    dist.rmdir()
    repaired = run()
    assert repaired.returncode == 0, repaired.stderr
    assert "is incomplete or broken: tinypkg missing (wants 2.0)" in repaired.stderr
    assert "--force-reinstall" in repaired.stderr and _version_in(venv) == "2.0"


@pytest.mark.skipif(sys.platform == "win32", reason="bash scripts")
def test_a_venv_of_another_python_is_made_again(line, tmp_path):
    run, venv, _req, _table = line
    venv.mkdir()
    (venv / "bin").mkdir()
    fake = venv / "bin" / "python"
    fake.write_text("#!/bin/sh\nexit 1\n")  # a Python that no longer runs
    fake.chmod(0o755)
    got = run()
    assert got.returncode == 0, got.stderr
    assert "made by another Python, or its Python no longer runs: making it again" in got.stderr
    assert _version_in(venv) == "1.0"


@pytest.mark.skipif(sys.platform == "win32", reason="bash scripts")
def test_a_full_disk_is_said_before_pip_and_the_next_run_installs(line, tmp_path):
    run, venv, _req, _table = line
    # a df that reports 100 MB free where the venv lives: the CI on record failed deep in pip so
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "df").write_text("#!/bin/sh\necho 'Filesystem 1048576-blocks Used Available Capacity Mounted on'\n"
                             "echo '/dev/x 2000 1900 100 95% /'\n")
    (fake / "df").chmod(0o755)
    full = run(extra={"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"})
    assert full.returncode == 1 and not full.stdout
    assert "only 100 MB free where" in full.stderr and "free some space" in full.stderr
    assert _version_in(venv) == "" and not (venv / ".installing").exists()
    # with room again, the same venv gets its requirements
    again = run()
    assert again.returncode == 0, again.stderr
    assert _version_in(venv) == "1.0"


@pytest.mark.skipif(sys.platform == "win32", reason="bash scripts")
def test_a_missing_python_is_said_and_nothing_else_is_used(line, tmp_path):
    run, venv, _req, table = line
    # a wrong interpreter named explicitly is an error, not passed over for another
    got = run(python=str(tmp_path / "no-such-python"))
    assert got.returncode == 2 and not got.stdout
    assert f"${VAR} is set to '{tmp_path / 'no-such-python'}', which is not a working Python {VERSION}" in got.stderr
    assert not venv.exists()
    # a Python this machine does not have: what to install
    table.write_text(table.read_text().replace(f" {VERSION} ", " 3.99 "))
    got = run(extra={"PYTHON399": ""})
    assert got.returncode == 2 and not got.stdout and not venv.exists()
    assert "Blender 9.9 needs Python 3.99: no Python 3.99 found" in got.stderr
    assert "pyenv install 3.99" in got.stderr and "PYTHON399=/path/to/python3.99" in got.stderr
    # not a line of the table
    got = run(line="8.8")
    assert got.returncode == 2 and "not a line of" in got.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="bash scripts")
def test_every_line_of_the_table_names_its_requirements_and_python():
    """The real table: each line's requirements file pins its bpy, and its Python is the one
    that line of Blender bundles (3.11 up to 5.0, 3.13 from 5.1)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import blender_lines
    import check_blender_lines
    rows = blender_lines.read_lines()
    assert [r["line"] for r in rows] == sorted((r["line"] for r in rows), key=blender_lines.version_key)
    for r in rows:
        pin = check_blender_lines.pinned_bpy(ROOT / r["requirements"])
        assert f"{pin[0]}.{pin[1]}" == r["line"], r
        assert r["python"] == ("3.11" if pin < (5, 1) else "3.13"), r
        assert r["runs"] in ("blender", "all")
    assert [r["line"] for r in rows if r["runs"] == "all"] == ["5.0", rows[-1]["line"]]
