"""What a property check is made of: the ``check`` decorator and Hypothesis's settings
(``check``), assertions that speak to students (``expect``), how strategies draw arrays
(``strategies``), the course secret they draw from (``secret``), and why a check did not
pass (``outcomes``). Assignments reach these through :mod:`grader.authoring`.

Empty on purpose: the command imports ``secret`` without Hypothesis.
"""
