#!/usr/bin/env bash
# The library's layering (docs/architecture.md, "Layers"), checked: a folder under lib/s2s/ may include only the
# folders listed for it (and itself); an include that goes up a layer fails CI with the file and
# line. The public API (lib/s2s/*.cc) sits on top and may include anything.
#   core <- backend <- ops <- layers <- model <- search <- pipeline <- corpus
#   text (tokenizers, vocabularies) and batch sit beside ops; formats read files into a model;
#   corpus runs a translator or scorer over files (shards, resume, in-order output).
# The installed headers (lib/public_headers.txt) include only each other and the standard
# library, and the command (app/) includes only them: every capability of the s2s command is
# one of the library's public API.
set -euo pipefail
cd "$(dirname "$0")/../lib/s2s"

declare -A allowed=(
  [core]=""
  [backend]="core"
  [ops]="core backend"
  [text]="core"
  [batch]="core"
  [layers]="core backend ops"
  [model]="core backend ops layers text"
  [search]="core backend ops layers model"
  [formats]="core backend ops layers model text"
  [pipeline]="core backend ops layers model search batch text formats"
  [corpus]="core backend ops layers model search batch text formats pipeline"
)

status=0
public=" $(tr '\n' ' ' < ../public_headers.txt)"
# An s2s include in `file` of a header that is not public: fails with the file and line.
only_public() {
  local path=$1 file=$2 who=$3
  while IFS=: read -r line include; do
    header=$(sed -E 's|.*[<"](s2s/[^">]+)[">].*|\1|' <<< "$include")
    case "$public " in
      *" $header "*) ;;
      *) echo "$file:$line: $who may include only installed headers (lib/public_headers.txt): $include"
         status=1 ;;
    esac
  done < <(grep -n -E '^#include [<"]s2s/' "$path" || true)
}
for header in $public; do only_public "../$header" "lib/$header" "a public header"; done
for file in ../../app/*.h ../../app/*.cc; do
  only_public "$file" "app/${file##*/}" "the command (app/)"
done
for file in ../../python/*.cc; do
  only_public "$file" "python/${file##*/}" "the Python module (python/)"
done

for folder in */; do
  folder=${folder%/}
  if [ -z "${allowed[$folder]+set}" ]; then
    echo "lib/s2s/$folder: a folder the layer check does not know; add it to .ci/check_layers.sh"
    status=1
    continue
  fi
  while IFS=: read -r file line include; do
    target=$(sed -E 's|.*"s2s/([a-z_]+)/.*|\1|' <<< "$include")
    [ "$target" = "$folder" ] && continue
    case " ${allowed[$folder]} " in
      *" $target "*) ;;
      *) echo "lib/s2s/$file:$line: $folder may not include $target: $include"
         status=1 ;;
    esac
  done < <(grep -rn --include='*.h' --include='*.cc' -E '^#include "s2s/[a-z_]+/' "$folder" || true)
done

# Namespaces follow folders (docs/contributing.md, "Style"): a file under lib/s2s/F/ declares
# namespace s2s::F.
# core/ is the root namespace s2s (Tensor, Error, Shape: the vocabulary every layer speaks).
for file in */*.h */*.cc; do
  folder=${file%%/*}
  want="s2s::$folder"
  [ "$folder" = core ] && want="s2s"
  if ! grep -qE "^namespace $want( \{|::)" "$file"; then
    echo "lib/s2s/$file: declares no 'namespace $want {' (namespaces follow folders)"
    status=1
  fi
done
[ "$status" = 0 ] && echo "layers: every include goes down, every namespace follows its folder (lib/s2s), app/, python/ and the public headers include only public headers"
exit "$status"
