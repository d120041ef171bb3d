"""Reductions: sum, mean, max/min, var/std, prod, cumulative ops, order statistics,
quantiles and histograms, each op declared next to its vector-Jacobian product.
"""
