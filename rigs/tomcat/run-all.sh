#!/usr/bin/env bash
# Every experiment in turn (about 45 minutes on 2 cores), then the summaries.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for e in exp1-cold-burst exp2-cpu exp3-alloc exp4-errors exp5-dashboard; do
    echo "== $e"
    bash "$here/$e.sh"
done
