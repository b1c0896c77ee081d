#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image: it installs
# Python 3.11+, bubblewrap and the grader's pinned dependencies, then grades the
# reference head once so that the image carries the recorded examples (later
# submissions replay them instead of recording them again).
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap python3-venv
PYTHON=""
for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; raise SystemExit(sys.version_info < (3, 11))'; then
        PYTHON="$candidate"
        break
    fi
done
if [ -z "$PYTHON" ]; then  # Ubuntu 22.04, Gradescope's default image, ships 3.10
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3.11 python3.11-venv
    PYTHON=python3.11
fi

"$PYTHON" -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --quiet --upgrade pip
"$ROOT/venv/bin/python" -m pip install --quiet -r "$SOURCE/requirements.txt"

cd "$SOURCE"
# The course secret, if the bundle has one, is root's alone: a submission graded in a
# plain process runs as uid 65534.
SECRET=()
# A course's own assignment folder holds its reference: root's alone, as the secret is.
if [ -d assignment ]; then
    chmod -R go-rwx assignment
fi
if [ -f secret.txt ]; then
    chmod 600 secret.txt
    SECRET=(--secret-file secret.txt)
fi
PYTHONPATH="$SOURCE" "$ROOT/venv/bin/python" -m grader check @REFERENCE@ \
    --rubric rubric.toml @ASSIGNMENT@ --sandbox process "${SECRET[@]}" >/dev/null
