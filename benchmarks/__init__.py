"""slpy's benchmarks and paper reproductions.

Each script runs from the repository root as `python benchmarks/NAME.py [options]`
(it puts the repository on sys.path itself, so `benchmarks` imports from this
checkout). What they share is in benchmarks/lib/; the prose of the reports they write
is in benchmarks/templates/.
"""
