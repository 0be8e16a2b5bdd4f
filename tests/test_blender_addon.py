"""Registering the add-on: twice in one process, without leaks, and without importing numba."""
import os
import subprocess
import sys
import textwrap

import pytest

from blender_support import PACKAGE, ROOT, RecordingLayout, bpy, is_registered, load_addon

pytestmark = pytest.mark.blender

OPERATORS = ("make", "solve", "compare", "show_cells", "animate_solve", "export_puzzle", "import_puzzle", "clear",
             "clear_kernel_cache", "make_preset_add", "solve_preset_add", "preset_apply",
             "set_view", "hide_clues", "show_all_clues", "toggle_clues", "pick_clues", "suggest_clue")
PANELS = ("NONOGRAM_PT_make", "NONOGRAM_PT_solve", "NONOGRAM_PT_compare", "NONOGRAM_PT_file",
          "NONOGRAM_PT_make_presets", "NONOGRAM_PT_solve_presets", "NONOGRAM_PT_design",
          "NONOGRAM_PT_view")


def _state():
    return {
        "operators": {op: hasattr(bpy.ops.nonogram, op) and _op_registered(op) for op in OPERATORS},
        "panels": {p: hasattr(bpy.types, p) for p in PANELS},
        "scene_prop": hasattr(bpy.types.Scene, "nonogram_settings"),
        "object_prop": hasattr(bpy.types.Object, "nonogram"),
        "pgs": hasattr(bpy.types, "NONOGRAM_PG_settings") or hasattr(bpy.types, "NONOGRAM_PG_object"),
        "object_menu": _menu_has(bpy.types.VIEW3D_MT_object),
        "import_menu": _menu_has(bpy.types.TOPBAR_MT_file_import),
        "export_menu": _menu_has(bpy.types.TOPBAR_MT_file_export),
        "nonogram_menu": hasattr(bpy.types, "NONOGRAM_MT_object"),
        "preferences": _preferences_class().is_registered,
        "keymap": _keymap_count() == 1,
    }


def _preferences_class():
    import importlib
    return importlib.import_module(PACKAGE + ".panels.preferences").NonogramPreferences


def _keymap_count():
    km = bpy.context.window_manager.keyconfigs.addon.keymaps.get("Object Mode")
    return sum(1 for k in km.keymap_items if k.idname == "wm.call_menu"
               and k.properties.name == "NONOGRAM_MT_object") if km else 0


def _op_registered(op):
    try:
        getattr(bpy.ops.nonogram, op).get_rna_type()
        return True
    except (KeyError, AttributeError, RuntimeError):
        return False


def _menu_has(menu):
    funcs = getattr(menu.draw, "_draw_funcs", None) or []
    return any(getattr(f, "__module__", "").startswith(PACKAGE + ".") for f in funcs)


def _all(state, value):
    flat = []
    for v in state.values():
        flat.extend(v.values() if isinstance(v, dict) else [v])
    return all(x == value for x in flat)


def test_register_unregister_twice():
    addon = load_addon()
    if is_registered():
        addon.unregister()
    gone = _state()
    assert _all({k: v for k, v in gone.items() if k != "pgs"}, False), gone
    assert not gone["pgs"]
    for _ in range(2):
        addon.register()
        on = _state()
        assert _all({k: v for k, v in on.items() if k != "pgs"}, True), on
        # the scene keeps values set by earlier tests across re-registration: check the definition
        settings = bpy.context.scene.nonogram_settings
        assert settings.bl_rna.properties["resolution"].default == 12
        assert settings.resolution >= 1
        addon.unregister()
        off = _state()
        assert _all({k: v for k, v in off.items() if k != "pgs"}, False), off
        assert not off["pgs"]
    addon.register()  # leave it registered for the other Blender tests in this process


def test_register_does_not_import_numba_or_the_engine():
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        import blender_support as bs
        bs.ensure_registered()
        loaded = sorted(m for m in sys.modules
                        if m == 'numba' or m.startswith('numba.') or m.startswith('llvmlite')
                        or m.startswith('{PACKAGE}.engine'))
        print('LOADED', loaded)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "LOADED []" in out.stdout, out.stdout


def test_engine_kernels_cache_in_our_folder_without_leaking_the_setting(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        import blender_support as bs
        bs.ensure_registered()
        import numba
        from numba.core.registry import CPUDispatcher
        runtime = sys.modules['{PACKAGE}.operators.runtime']
        before = numba.config.CACHE_DIR
        runtime.engine('voxel.voxelize')
        # Each kernel gets our folder; numba's process-wide setting is never changed.
        assert numba.config.CACHE_DIR == before, numba.config.CACHE_DIR
        assert runtime.active_cache_dir().startswith({str(tmp_path)!r})
        paths = set()
        for mod in ('raycast', 'voxelize'):
            m = sys.modules['{PACKAGE}.engine.' + mod]
            paths |= {{f._cache._cache_path for f in vars(m).values() if isinstance(f, CPUDispatcher)}}
        print('PATHS', sorted(paths))
    """)
    # tempfile.gettempdir() follows TMPDIR: the fallback folder lands in tmp_path.
    env = dict(os.environ, TMPDIR=str(tmp_path))
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("PATHS"))
    paths = eval(line[6:])
    assert paths, "no numba kernels found in the voxelizer"
    # Outside bl_ext.* Blender refuses extension_path_user: a temp folder, never the source tree.
    assert all(p.startswith(str(tmp_path / "nonogram3d_numba_cache_")) for p in paths), paths


def _draw_all(addon):
    import importlib
    sidebar = importlib.import_module(PACKAGE + ".panels.sidebar")
    log = []
    for cls in sidebar.classes:
        if cls.bl_region_type == 'HEADER':  # preset popovers: Blender's own drawing
            continue
        if hasattr(cls, "poll") and not cls.poll(bpy.context):
            continue
        fake = type("P", (), {"layout": RecordingLayout(log)})()
        cls.draw(fake, bpy.context)
    return log


def test_panels_draw_in_every_state():
    import blender_support as bs
    addon = bs.ensure_registered()
    bs.reset_scene()
    log = _draw_all(addon)
    assert ("operator", "nonogram.make") in log and ("prop", "resolution") in log
    # The Make button's poll reason, shown under it.
    assert ("label", "No active object: select a mesh object to make a nonogram from") in log
    assert ("operator", "nonogram.solve") not in log  # no nonogram yet
    bs.add_primitive("monkey")
    bpy.context.scene.nonogram_settings.resolution = 6
    assert bs.run_op(bpy.ops.nonogram.make) == {'FINISHED'}
    log = _draw_all(addon)
    assert ("operator", "nonogram.solve") in log and ("prop", "method") in log
    X, Y, Z = (len(set(c)) for c in zip(*[tuple(v.co) for v in bpy.context.active_object.data.vertices]))
    n_clues = len(bpy.context.active_object.nonogram.labels.data.vertices)
    assert ("label", f"{X}×{Y}×{Z} cells, {n_clues} clues") in log
    # Suzanne is open (eye sockets): the voxelizer's warning is shown.
    assert any(kind == "label" and "open" in text for kind, text in log)
    assert not any(kind == "label" and text.startswith("Line solves") for kind, text in log)
    assert bs.run_op(bpy.ops.nonogram.solve) == {'FINISHED'}
    assert bs.run_op(bpy.ops.nonogram.compare) == {'FINISHED'}
    log = _draw_all(addon)
    labels = [text for kind, text in log if kind == "label"]
    assert any(t.startswith("Line solves:") for t in labels)
    assert any(t.startswith("Cells known:") for t in labels)
    assert any(t in ("Unique solution", "Multiple solutions") for t in labels)
    assert {"Brute", "Hier", "Hier+Pre", "Heur", "Heur+Pre", "Learned", "Learned+Pre"} <= set(labels)
    assert ("operator", "nonogram.show_cells") in log and ("operator", "nonogram.animate_solve") in log


def test_without_numba_the_addon_works_and_the_panel_says_why():
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        import blender_support as bs
        import bpy
        addon = bs.ensure_registered()
        bs.reset_scene()
        bs.add_primitive("cube")
        # No 3D View override: scripts call Make this way.
        assert bpy.ops.nonogram.make(resolution=3) == {{'FINISHED'}}
        assert len(bpy.context.active_object.data.vertices) == 27
        assert bpy.ops.nonogram.solve() == {{'FINISHED'}}
        assert 'numba' not in sys.modules
        sidebar = sys.modules['{PACKAGE}.panels.sidebar']
        print('STATUS', sidebar.numba_status())
    """)
    env = dict(os.environ, NONOGRAM_NO_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "STATUS ImportError: disabled by NONOGRAM_NO_NUMBA" in out.stdout, out.stdout
