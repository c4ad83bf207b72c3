#!/usr/bin/env bash
# The library's layering (DESIGN.md §2), checked: a folder under lib/s2s/ may include only the
# folders listed for it (and itself); an include that goes up a layer fails CI with the file and
# line. The public API (lib/s2s/s2s.h, s2s.cc) sits on top and may include anything.
#   core <- backend <- ops <- layers <- model <- search <- pipeline
#   text (tokenizers, vocabularies) and batch sit beside ops; formats read files into a model.
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
)

status=0
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

# Namespaces follow folders (STYLE.md): a file under lib/s2s/F/ declares namespace s2s::F.
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
[ "$status" = 0 ] && echo "layers: every include goes down, every namespace follows its folder (lib/s2s)"
exit "$status"
