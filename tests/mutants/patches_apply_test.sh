#!/usr/bin/env bash
# Every planted mistake in tests/mutants/ still applies to the sources it
# patches (`git apply --check` on a copy of them), and its header names the
# mistake and the policies to explore: an edit to a policy that breaks a
# patch fails here, not in the next mutation run.
set -euo pipefail
cd "${TEST_SRCDIR}/${TEST_WORKSPACE}"
command -v git >/dev/null || { echo "patches_apply_test: git is not installed" >&2; exit 1; }
shopt -s nullglob
patches=(tests/mutants/*.patch)
((${#patches[@]} > 0)) || { echo "patches_apply_test: no patches found" >&2; exit 1; }
tree="${TEST_TMPDIR}/tree"
failed=0
for p in "${patches[@]}"; do
  name=$(basename "$p")
  if [[ ! "$name" =~ ^[0-9][0-9]-[a-z0-9-]+\.patch$ ]]; then
    echo "FAIL $name: patches are named NN-short-name.patch"
    failed=1
    continue
  fi
  # The header, before the diff: "Mutant: ..." and "Policies: a,b".
  header=$(sed '/^diff --git /,$d' "$p")
  if ! grep -qE '^Mutant: .+' <<<"$header" || ! grep -qE '^Policies: [a-z0-9,-]+$' <<<"$header"; then
    echo "FAIL $name: the header needs a 'Mutant: ...' and a 'Policies: a,b' line"
    failed=1
    continue
  fi
  # A private copy of the touched files (git apply will not patch through the
  # runfiles' symbolic links).
  rm -rf "$tree"
  mkdir -p "$tree"
  missing=0
  while read -r file; do
    if [[ ! -f "$file" ]]; then
      echo "FAIL $name: touches $file, which is not in patches_apply_test's data"
      missing=1
      continue
    fi
    mkdir -p "$tree/$(dirname "$file")"
    cp -L "$file" "$tree/$file"
  done < <(sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "$p")
  if ((missing)); then
    failed=1
    continue
  fi
  if ! out=$(cd "$tree" && git apply --check "$OLDPWD/$p" 2>&1); then
    echo "FAIL $name does not apply: $out"
    failed=1
    continue
  fi
  echo "ok   $name"
done
exit "$failed"
