#!/usr/bin/env bash
# Fails if scripts/setup names a network address: the mirror it fetches from must come
# from the machine's own apt configuration (local mirrors, proxies), never the repository.
#
#   tests/scripts/setup_no_address_test.sh [REPO_ROOT]     (default: this checkout)
set -euo pipefail

repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
setup=$repo/scripts/setup

if [ ! -f "$setup" ]; then
  echo "setup_no_address_test: $setup not found" >&2
  exit 1
fi
if grep -nEi 'https?://' "$setup" >&2; then
  echo "setup_no_address_test: $setup contains the http(s) URLs above;" \
       "take mirror addresses from apt's configuration instead" >&2
  exit 1
fi
echo "setup_no_address_test: no http(s) URL in $setup"
