"""The browser the web tests drive (``webplayer.launch``) keeps its temporary files to itself.

Needs Chromium and Playwright (skipped with the reason otherwise) and /proc (Linux). A module of
its own: it starts and closes a browser of its own, which a module holding the shared browser
fixture cannot (one Playwright per thread).
"""
from __future__ import annotations

import os
import tempfile

import pytest

import webplayer
from webplayer import open_page
from engine.play import webpage

pytestmark = pytest.mark.skipif(webplayer.missing() is not None, reason=str(webplayer.missing()))


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    """Any page that draws will do: the ring with every clue shown (no design needed)."""
    from engine.model.clues import puzzle_from_grid
    path = tmp_path_factory.mktemp("web") / "ring.html"
    webpage.write_page(puzzle_from_grid(webplayer.ring_grid(8), name="ring"), str(path))
    return path


def _proc_environ(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read().split(b"\0")
    except OSError:  # gone, or not ours to read
        return []


def _proc_fd_targets(pid):
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []
    out = []
    for n in names:
        try:
            out.append(os.readlink(f"/proc/{pid}/fd/{n}"))
        except OSError:
            pass
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_the_browser_keeps_its_temporary_files_in_a_directory_of_its_own(page_file):
    """Chromium's shared-memory files (in $TMPDIR where /dev/shm is turned off, as Debian's
    chromium script does on a small /dev/shm) go to the browser's own directory, which is gone
    once the browser closes: none in the system's temporary directory, where an unlucky one
    used to stay behind."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = webplayer.launch(p)
        tmp = b.nonogram_tmp
        pg = b.new_page()
        open_page(pg, page_file)  # a page that draws: shared memory in use
        mine = f"TMPDIR={tmp}".encode()
        procs = [d for d in os.listdir("/proc") if d.isdigit() and mine in _proc_environ(d)]
        shm = [t for d in procs for t in _proc_fd_targets(d) if ".org.chromium.Chromium." in t]
        b.close()
    assert procs, "the browser's processes run with their own TMPDIR"
    assert not any(os.path.dirname(t) == tempfile.gettempdir() for t in shm), shm
    assert not os.path.exists(tmp)
