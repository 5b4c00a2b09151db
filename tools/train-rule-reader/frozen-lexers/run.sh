#!/usr/bin/env bash
# Each development set read by the lexer as it stood when the set was frozen, before any round tuned on it: the
# lexer's fresh predictions, which the combination of lexer and model is chosen on (a lexer tuned on a set would
# make any combination look best that trusts it). Writes frozen-lexer-predictions.tsv beside this script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
out="$here/frozen-lexer-predictions.tsv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'set\tindex\tfound\tmodality\tlexer_commit\n' > "$out"
# set, the commit that froze it (the lexer then had not read it)
while read -r set commit; do
  src="$work/$commit/src"
  mkdir -p "$src" "$work/$commit/classes"
  for f in $(git -C "$repo" ls-tree -r --name-only "$commit" shared-model/src/main | grep '/deontic/'); do
    mkdir -p "$src/$(dirname "$f")"
    git -C "$repo" show "$commit:$f" > "$src/$f"
  done
  javac -nowarn -d "$work/$commit/classes" $(find "$src" -name '*.java') "$here/FrozenLexerRun.java"
  if [ -d "$src/shared-model/src/main/resources" ]; then cp -r "$src/shared-model/src/main/resources/." "$work/$commit/classes/"; fi
  git -C "$repo" show "$commit:shared-model/src/test/resources/deontic/$set" > "$work/$set"
  java -cp "$work/$commit/classes" FrozenLexerRun "$work/$set" | sed "s/^/$set\t/; s/\$/\t$commit/" >> "$out"
done <<'SETS'
fourth-set-sentences.tsv 75af104
fifth-set-sentences.tsv 2effacb
sixth-set-sentences.tsv 60338b1
seventh-set-sentences.tsv 875f679
eighth-set-sentences.tsv 27baf45
SETS
wc -l "$out"
