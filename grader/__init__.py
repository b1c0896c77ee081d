"""attention-grader: grade student NumPy implementations of one attention head.

Data flows one way: submission -> worker (sandboxed) -> check results (pytest +
Hypothesis, trusted) -> score (pure) -> report (versioned JSON, text).
"""

__version__ = "0.6.0"
