"""How students disguise a copied head: each function takes a head's source and returns a
disguised copy (tests/test_similarity.py and benchmarks/similarity_quality.py use them)."""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import tokenize

KEEP = {"np", "numpy", "softmax", "attention", "self_attention", "causal_mask", "self", "None", "True", "False"}


def renamed(source: str) -> str:
    """Every local name renamed (the four functions, modules, attributes and keyword
    arguments kept, so that the copy still works as the original did)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    # A name written as ``name=`` inside brackets is a keyword argument or a parameter
    # with a default: callers may pass it by that name, so it keeps its name everywhere.
    keywords, depth = set(), 0
    for token, following in zip(tokens, tokens[1:]):
        depth += token.string in "([{" and token.type == tokenize.OP
        depth -= token.string in ")]}" and token.type == tokenize.OP
        if depth and token.type == tokenize.NAME and following.string == "=":
            keywords.add(token.string)
        if token.string in {"import", "from"} and following.type == tokenize.NAME:
            keywords.add(following.string)  # a module's name: renaming it breaks the import
    names: dict[str, str] = {}
    out = []
    previous = ""
    for token in tokens:
        text = token.string
        if token.type == tokenize.NAME and not keyword.iskeyword(text) and previous != "." \
                and text not in KEEP | keywords and not hasattr(builtins, text):
            text = names.setdefault(text, f"my_{text.lower()}_{len(names)}")
        out.append((token.type, text))
        previous = token.string
    return tokenize.untokenize(out)


def reordered(source: str) -> str:
    """The top-level functions in reverse order (and the file reformatted by ast.unparse)."""
    tree = ast.parse(source)
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    others = [node for node in tree.body if not isinstance(node, ast.FunctionDef)]
    tree.body = others + functions[::-1]
    return ast.unparse(tree)


def restyled(source: str) -> str:
    """Comments dropped, blank lines doubled, a comment of the student's own added per function."""
    lines = []
    for line in source.splitlines():
        code = re.sub(r"\s+#.*$", "", line) if "#" in line and "'" not in line and '"' not in line else line
        if code.strip().startswith("#"):
            continue
        lines.append(code)
        if code.startswith("def "):
            lines.append("    # my own implementation")
        if not code.strip():
            lines.append("")
    return "\n".join(lines) + "\n"


def reformatted(source: str) -> str:
    """The file as ast.unparse writes it: docstrings kept, comments and layout gone."""
    return ast.unparse(ast.parse(source))


def transplanted(donor: str, own: str, function: str = "attention") -> str:
    """``own`` with its ``function`` replaced by ``donor``'s: one function copied into own work."""
    donor_tree, own_tree = ast.parse(donor), ast.parse(own)
    copied = next(node for node in donor_tree.body if isinstance(node, ast.FunctionDef) and node.name == function)
    own_tree.body = [copied if isinstance(node, ast.FunctionDef) and node.name == function else node for node in own_tree.body]
    lines = own.splitlines()
    # Keep the student's own layout outside the copied function.
    target = next(node for node in ast.parse(own).body if isinstance(node, ast.FunctionDef) and node.name == function)
    donor_lines = donor.splitlines()[copied.lineno - 1 - len(copied.decorator_list) : copied.end_lineno]
    return "\n".join(lines[: target.lineno - 1] + donor_lines + lines[target.end_lineno :]) + "\n"


DISGUISES = {"renamed": renamed, "reordered": reordered, "restyled": restyled, "reformatted": reformatted}
