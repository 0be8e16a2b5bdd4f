"""scripts/check_blender_lines.py against a package index served on the loopback address: it says
when a Blender line newer than the tested ones, or a newer patch of one, is out, and never fails
the test command when the index cannot be asked."""
import http.server
import json
import sys
import threading

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import blender_lines  # noqa: E402
import check_blender_lines  # noqa: E402

TESTED = blender_lines.read_lines()


def _files(*versions, yanked=()):
    out = []
    for v in versions:
        tag = "cp311" if tuple(map(int, v.split("."))) < (5, 1) else "cp313"
        if v.startswith("5.4"):
            tag = "cp314"
        out.append({"filename": f"bpy-{v}-{tag}-{tag}-manylinux_2_28_x86_64.whl", "yanked": v in yanked})
    return out


# What the tested lines pin (requirements-bpyNN.txt), read, so the tests follow a bump of a pin.
PINNED = [".".join(map(str, check_blender_lines.pinned_bpy(ROOT / r["requirements"]))) for r in TESTED]


@pytest.fixture
def index():
    """A simple index on 127.0.0.1 whose /bpy/ page is whatever the test puts in ``page``."""
    page = {"body": b"", "type": "application/vnd.pypi.simple.v1+json", "status": 200}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(page["status"] if self.path == "/simple/bpy/" else 404)
            self.send_header("Content-Type", page["type"])
            self.end_headers()
            self.wfile.write(page["body"])

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def serve(body, kind="application/vnd.pypi.simple.v1+json", status=200):
        page.update(body=body if isinstance(body, bytes) else json.dumps({"files": body}).encode(),
                    type=kind, status=status)
        return f"http://127.0.0.1:{server.server_address[1]}/simple"
    yield serve
    server.shutdown()
    server.server_close()


def _run(capsys, *args):
    rc = check_blender_lines.main(list(args))
    return rc, capsys.readouterr().out


def test_nothing_newer_than_the_tested_lines(index, capsys):
    url = index(_files("4.2.0", *PINNED, "5.3.0"))
    rc, out = _run(capsys, "--index", url, "--strict")
    assert rc == 0 and "nothing newer than the lines tested" in out and "NEW" not in out, out


def test_a_new_line_is_announced_and_strict_fails_for_it(index, capsys):
    url = index(_files(*PINNED, "5.4.0", "5.4.1", "5.5.0", yanked=("5.5.0",)))
    rc, out = _run(capsys, "--index", url)
    assert rc == 0, out  # a notice for the test command, not a failure
    assert "NEW BLENDER LINE: bpy 5.4.1 (Blender 5.4, wheels for Python 3.14)" in out, out
    assert "the tests stop at 5.3" in out and "requirements-bpy54.txt" in out
    assert "5.5" not in out  # a yanked release is not out
    assert _run(capsys, "--index", url, "--strict")[0] == 1


def test_a_newer_patch_of_a_tested_line_is_announced(index, capsys):
    newest = TESTED[-1]
    pin = check_blender_lines.pinned_bpy(ROOT / newest["requirements"])
    patch = f"{pin[0]}.{pin[1]}.{pin[2] + 1}"
    url = index(_files(*PINNED, patch))
    rc, out = _run(capsys, "--index", url, "--strict")
    assert rc == 1
    assert f"newer patch: bpy {patch} is out; {newest['requirements']} pins {'.'.join(map(str, pin))}" in out


def test_the_html_page_of_an_index_without_json_is_read(index, capsys):
    links = "".join(f'<a href="x/{f["filename"]}">{f["filename"]}</a>\n' for f in _files(*PINNED, "5.4.0"))
    url = index(f"<html><body>{links}</body></html>".encode(), kind="text/html")
    rc, out = _run(capsys, "--index", url)
    assert rc == 0 and "NEW BLENDER LINE: bpy 5.4.0" in out, out


@pytest.mark.parametrize("trouble", ["refused", "error", "garbage", "empty"])
def test_an_index_that_cannot_be_asked_never_fails_the_tests(index, capsys, trouble):
    if trouble == "refused":
        url = index(b"")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        url = f"http://127.0.0.1:{port + 1 if port < 65535 else port - 1}/simple"  # nobody listens
    elif trouble == "error":
        url = index(b"down", kind="text/plain", status=503)
    elif trouble == "garbage":
        url = index(b"{not json", kind="application/vnd.pypi.simple.v1+json")
    else:
        url = index([])
    rc, out = _run(capsys, "--index", url, "--strict")
    assert rc == 0, out
    assert "not checked this time" in out, out
