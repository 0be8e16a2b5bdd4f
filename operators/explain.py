"""A label with a tooltip: panels draw a figure as this operator (no emboss), so hovering it
explains what the figure measures, and clicking it repeats the explanation in the status bar."""
import bpy
from bpy.props import StringProperty

# What each explained figure measures (the tooltip's text), by topic.
TOPICS = {
    "idle_line_solves": (
        "Share of line solves that deduced nothing new: the solver looked at a line and every "
        "cell it could settle was already settled. It measures how much of the solver's work "
        "went to waste, not guessing: a puzzle solved by line logic alone can show a high "
        "share (the seed study calls these 'bad guesses')"),
}


class NONOGRAM_OT_explain(bpy.types.Operator):
    """Explain this figure"""
    bl_idname = "nonogram.explain"
    bl_label = "Explain"
    bl_options = {'INTERNAL'}

    topic: StringProperty(options={'HIDDEN', 'SKIP_SAVE'})

    @classmethod
    def description(cls, context, properties):
        return TOPICS.get(properties.topic, "")

    def execute(self, context: bpy.types.Context):
        text = TOPICS.get(self.topic)
        if text is None:
            return {'CANCELLED'}
        self.report({'INFO'}, text)
        return {'FINISHED'}
