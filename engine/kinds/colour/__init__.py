"""The colour kind, two or more colours (``colourkind.ColourKind`` / ``ColourSolver``): propagation
over value masks on a trail (``colourprop``), probing every value of a cell (``colourprobe``), its
CNF over the plain encoders (``coloursat``) and its line-result cache (``linecache``). A 1-colour
puzzle never reaches it: it is its plain puzzle."""
