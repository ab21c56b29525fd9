"""`python -m slpy ...` runs the command line, as `slpy ...` does."""
from .cli import main

main(prog_name="slpy")
