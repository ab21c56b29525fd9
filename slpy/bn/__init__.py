"""Bayesian networks over discrete data: a model family for slpy (DAG priors as SLPs,
BDeu and K2 scores, exact answers for small networks)."""
