#!/usr/bin/env bash
# The plugin rebuilt from source exports and imports the same dynamic symbols
# as Debian's libgomp-plugin-nvptx1.
set -euo pipefail
built=$1
debian=/usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1
symbols() { nm -D "$2" "$1" | awk '{print $NF}' | sort; }
diff <(symbols "$debian" --defined-only) <(symbols "$built" --defined-only) ||
  { echo "FAIL: exported symbols differ (< Debian's, > ours)"; exit 1; }
diff <(symbols "$debian" --undefined-only) <(symbols "$built" --undefined-only) ||
  { echo "FAIL: imported symbols differ (< Debian's, > ours)"; exit 1; }
echo "PASS: $(symbols "$built" --defined-only | wc -l) exported, $(symbols "$built" --undefined-only | wc -l) imported, as Debian's"
