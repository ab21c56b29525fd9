"""slpy's version, apart from the package's __init__ (which loads the plugins), so that
modules inside slpy can name it without importing the root package."""
__version__ = "0.1.0"
