"""A course's version of the first lesson in another convention: a boolean mask is True
where a query may *not* attend (as PyTorch's nn.MultiheadAttention reads ``attn_mask``).

The shipped checks grade attention and self_attention through the course's convention
(each mask is sent to the student's code as the course reads it); causal_mask's answer
follows the course's convention, so the course grades it with its own check
(``checks/blocked.py``) and its rubric leaves out the shipped causal_mask checks.
"""

from grader.authoring import Convention, extend


def _flipped(mask):
    import numpy as np

    return np.logical_not(mask)


BLOCKED = Convention(
    "a boolean mask is True where a query may not attend",
    parameters={"attention": ("mask",), "self_attention": ("mask",)},
    to_course=_flipped,
    to_lesson=_flipped,
    answers=("causal_mask",),
)

ASSIGNMENT = extend(
    "attention_head",
    name="attention_blocked",
    title="Attention head (True = blocked)",
    # The course's own head (what validation grades, and a bundle's image checks first);
    # the checks still compare with the lesson's reference, through the convention.
    reference="solution.py",
    rubric="rubric.toml",
    template={"attention.py": "template.py", "README.md": "handout.md"},
    convention=BLOCKED,
)
