#!/bin/bash
cd "$(dirname "$0")"
python3 -c "import pytest" 2>/dev/null || { echo "no pytest on device; using carried"; export PYTHONPATH=$PWD/_pylib; }
python3 -c "import triton, numpy, torch, pytest, sys; print(sys.version, triton.__version__, numpy.__version__, torch.__version__, pytest.__version__)"
FILES=${FILES:-"test_conformance_*.py test_tutorials.py test_libraries.py"}
TRITON_INTERPRET=1 PYTHONUNBUFFERED=1 timeout ${T:-500} python3 -m pytest -q -p no:cacheprovider $FILES --junitxml=$OUT/junit.xml -rfEsxX --durations=25 $EXTRA > $OUT/log.txt 2>&1
echo "rc=$?"
tail -5 $OUT/log.txt
