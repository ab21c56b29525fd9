"""The compiled path: chains whose state is a tree on flat arrays and whose moves run
in numba, for priors in the PCFG fragment (GROWTREE so far, slpy.compiled.growtree)."""
