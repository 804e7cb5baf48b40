"""simtenant: a SQL-backed simulated enterprise tenant for tool-using agents."""

__version__ = "0.1.0"
