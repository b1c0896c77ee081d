"""``%grade`` in a notebook kernel: the functions as the kernel has them, graded in the sandbox.

``%load_ext grader`` (:func:`grader.load_ipython_extension`) adds the ``%grade`` line
magic (:mod:`grader.kernel.magic`). It reads the code the kernel has run, in the order
it ran (:mod:`grader.kernel.history`), as a notebook is read (so magics, shell lines and
demo cells are left out with the same sentences, and the latest definition counts), and
grades it exactly as ``grader check`` grades a file: the code runs in the grader's
sandboxed worker, the checks in the grader's check process, never in the kernel, which
only sends the cells' text and shows the report. The check process and its sandbox stay
up between calls (:mod:`grader.kernel.session`), so a second ``%grade`` costs a fraction
of the first.
"""
