"""The IAM chunk model (source note 001).

Templates, chunks, collector, noise filter, library, rote memory, partial finder,
features, belief, and the estimator with its fitted state.
"""
