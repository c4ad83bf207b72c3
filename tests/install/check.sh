#!/bin/bash
# tests/install/check.sh BUILD_DIR: installs the build into a fresh prefix and builds README's
# "Use the library" program against the installed tree only (CMake package, shared and static,
# and pkg-config), then runs each on the installed default model. Also checks that the installed
# s2s finds its models and `--config fast` there, and that the man page is installed.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"

cmake --install "$BUILD" --prefix "$PREFIX" > /dev/null
for f in bin/s2s include/s2s/s2s.h include/s2s/core/error.h lib/libs2s.a lib/pkgconfig/s2s.pc \
         lib/pkgconfig/s2s-static.pc \
         lib/cmake/s2s/s2sConfig.cmake share/s2s/models/en-de share/s2s/configs/fast.yml \
         share/man/man1/s2s.1; do
  [ -e "$PREFIX/$f" ] || { echo "not installed: $f"; exit 1; }
done
soname=$(objdump -p "$PREFIX"/lib/libs2s.so | awk '/SONAME/ {print $2}')
[ "$soname" = libs2s.so.0 ] || { echo "SONAME is '$soname', not libs2s.so.0"; exit 1; }
# Only the public headers (lib/public_headers.txt): no internal one may be reachable from the
# installed tree, and every public one includes only public ones and the standard library.
installed=$(cd "$PREFIX/include" && find s2s -name '*.h' | sort | tr '\n' ' ')
public=$(sort "$ROOT/lib/public_headers.txt" | tr '\n' ' ')
[ "$installed" = "$public" ] || { echo "installed headers: $installed, not $public"; exit 1; }
for header in $public; do
  printf '#include <%s>\nint main() {}\n' "$header" > "$WORK/one_header.cc"
  g++ -std=c++17 -fsyntax-only -I"$PREFIX/include" "$WORK/one_header.cc" ||
    { echo "$header does not compile on its own from the installed tree"; exit 1; }
done

# The program, exactly as README.md shows it.
mkdir "$WORK/src"
awk '/^```cpp$/ {on = 1; next} /^```$/ {if (on) exit} on' "$ROOT/README.md" > "$WORK/src/translate.cc"
grep -q 's2s::Engine' "$WORK/src/translate.cc" || { echo "no example in README.md"; exit 1; }
cp "$ROOT/tests/install/CMakeLists.txt" "$WORK/src/"
cmake -S "$WORK/src" -B "$WORK/build" -DCMAKE_PREFIX_PATH="$PREFIX" > /dev/null
cmake --build "$WORK/build" -j2 > /dev/null
# s2s.pc (the shared library) requires nothing: found with no other .pc file in sight.
g++ -std=c++17 "$WORK/src/translate.cc" -o "$WORK/translate_pc" $(PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs s2s)
g++ -std=c++17 "$WORK/src/translate.cc" -o "$WORK/translate_pc_static" $(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs s2s-static)
ldd "$WORK/translate_pc_static" | grep -q libs2s && { echo "translate_pc_static uses libs2s.so"; exit 1; }
# The shared library's CMake package asks for none of the static library's dependencies: the
# examples/ program builds with every one of them made unfindable.
no_deps=""
for package in dnnl yaml-cpp nlohmann_json ZLIB OpenMP ICU PkgConfig; do
  no_deps="$no_deps -DCMAKE_DISABLE_FIND_PACKAGE_$package=ON"
done
cmake -S "$ROOT/examples" -B "$WORK/examples" -DCMAKE_PREFIX_PATH="$PREFIX" $no_deps > /dev/null
cmake --build "$WORK/examples" -j2 > /dev/null

model="$PREFIX/share/s2s/models/en-de"
expected=$(printf 'The licence is free.\n\nThe file was not found.\n' | "$PREFIX/bin/s2s" translate -m "$model" -b 4 --threads 2)
[ "$(printf '%s\n' "$expected" | wc -l)" = 3 ] || { echo "s2s gave: $expected"; exit 1; }
for program in "$WORK/build/translate_shared" "$WORK/build/translate_static" "$WORK/translate_pc" \
               "$WORK/translate_pc_static"; do
  got=$(LD_LIBRARY_PATH="$PREFIX/lib" "$program" "$model")
  [ "$got" = "$expected" ] || { echo "$(basename "$program") gave '$got', s2s gave '$expected'"; exit 1; }
  # The default model through S2S_MODEL, and a bad folder as a one-line error with exit 1.
  got=$(S2S_MODEL="$model" LD_LIBRARY_PATH="$PREFIX/lib" "$program")
  [ "$got" = "$expected" ] || { echo "$(basename "$program") with S2S_MODEL gave '$got'"; exit 1; }
  if LD_LIBRARY_PATH="$PREFIX/lib" "$program" "$WORK/nowhere" 2> "$WORK/err"; then
    echo "$(basename "$program"): no error for a missing folder"; exit 1
  fi
  grep -q "^translate: .*nowhere: no such model folder$" "$WORK/err" || { cat "$WORK/err"; exit 1; }
done
ldd "$WORK/build/translate_static" | grep -q libs2s && { echo "translate_static uses libs2s.so"; exit 1; }
# A program linking the installed shared library, started from elsewhere without S2S_MODEL,
# finds the default model relative to the library (the prefix is not the configured one).
for program in "$WORK/build/translate_shared" "$WORK/translate_pc"; do
  got=$(cd / && env -u S2S_MODEL LD_LIBRARY_PATH="$PREFIX/lib" "$program")
  [ "$got" = "$expected" ] || { echo "$(basename "$program") without a folder gave '$got'"; exit 1; }
done
# The Python module (when the build made it): installed beside the prefix's other libraries, it
# translates with the prefix's default model, from elsewhere.
if [ -d "$BUILD/python/s2s" ]; then
  site=$(echo "$PREFIX"/lib/python3*/dist-packages)
  [ -f "$site/s2s/__init__.py" ] && ls "$site"/s2s/_s2s*.so > /dev/null ||
    { echo "the Python module is not installed in $site"; exit 1; }
  got=$(cd / && env -u S2S_MODEL PYTHONPATH="$site" /usr/bin/python3 -c \
    'import s2s; print(s2s.Translator(intra_threads=2).translate_batch(["The licence is free."], beam_size=4)[0].hypotheses[0])')
  [ "$got" = "$(head -1 <<< "$expected")" ] || { echo "the installed Python module gave '$got'"; exit 1; }
fi
# The examples/ program: the shared library's per-call options, n-best, alignment and streaming.
got=$(cd / && env -u S2S_MODEL LD_LIBRARY_PATH="$PREFIX/lib" "$WORK/examples/translate_example" < /dev/null)
grep -q '^0 Die Lizenz ist frei\.' <<< "$got" || { echo "translate_example gave: $got"; exit 1; }

# The installed binary, started from elsewhere, finds its model and the shipped configs.
(cd "$WORK" && printf 'Hello world.\n' | "$PREFIX/bin/s2s" translate --config fast > "$WORK/fast.out")
[ "$(wc -l < "$WORK/fast.out")" = 1 ] || { echo "--config fast failed"; exit 1; }
echo "install check passed: $(echo "$expected" | head -1)"
