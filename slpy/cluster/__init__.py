"""Bayesian clustering: a model family for slpy (priors over partitions as SLPs, the
Chinese restaurant process; conjugate normal and Dirichlet-multinomial scores; exact
answers for a few items)."""
