"""The columns of the compiled tree's node arrays (slpy.compiled._kernels describes
them): ``I`` int64 [cap, 6] and ``F`` float64 [cap, 2]."""
FEAT, LO, HI, DEPTH, SIZE, NS = 0, 1, 2, 3, 4, 5
THR, LL = 0, 1
