"""The jobs layer: the engine loaded lazily (``runtime``) and reached through typed names
(``engine_access``), engine calls in worker threads (``worker``), kernels compiled ahead
(``warmup``) and kept on disk (``kernel_cache``), the live check's background checks
(``live_check``) and the bpy-free half of Make (``make``). Imports only the engine (through
``engine_access``) and, lazily, bpy's timers; never the scene, operators or panels."""
