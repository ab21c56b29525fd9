"""Trees: likelihoods that score a tree's leaves (row sets) against the response."""
from .likelihood import (LIKELIHOODS, DirichletLikelihood, Likelihood, NormalLikelihood,
                         leaf_class_counts, leaf_stats, make_likelihood,
                         normal_tree_log_likelihood, register_likelihood,
                         tree_log_likelihood)

__all__ = ["LIKELIHOODS", "DirichletLikelihood", "Likelihood", "NormalLikelihood",
           "leaf_class_counts", "leaf_stats", "make_likelihood",
           "normal_tree_log_likelihood", "register_likelihood", "tree_log_likelihood"]
