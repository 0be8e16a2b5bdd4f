import bpy

from ..scene import polls
from ..jobs import kernel_cache


class NONOGRAM_OT_clear_kernel_cache(polls.Polled, bpy.types.Operator):
    """Delete the compiled solver and voxelizer kernels from disk (the next session compiles
    them again, which takes a while once)"""
    bl_idname = "nonogram.clear_kernel_cache"
    bl_label = "Clear Kernel Cache"
    bl_options = {'REGISTER'}

    # a running job may be writing kernels into the cache
    checks = (polls.no_job,)

    def execute(self, context: bpy.types.Context):
        n = kernel_cache.clear_kernel_cache()
        self.report({'INFO'}, f"Removed {n} cached kernel file{'s' if n != 1 else ''}"
                    if n else "The kernel cache was already empty")
        return {'FINISHED'}
