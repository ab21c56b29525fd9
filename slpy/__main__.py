"""`python -m slpy ...` runs the command line, as `slpy ...` does."""
if __name__ == "__main__":      # not when a tool imports every module
    from .cli import main
    main(prog_name="slpy")
