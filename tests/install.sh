#!/bin/sh
# install.sh — the shared library exports only tvds_ symbols; `make install` into a staging
# directory gives a tree that an external C program builds against with pkg-config alone
# (its static library, like the shared one, defining tvds_ symbols only),
# linked with the shared library and (pkg-config --static, the shared library removed) with the
# static one; `make uninstall` removes every installed file (docs/library.md).
#
# usage: tests/install.sh BUILD SO   (`make test-install` passes them)
set -eu
[ $# -eq 2 ] || { echo "usage: tests/install.sh BUILD SO"; exit 2; }
build=$1
so=$2
make=${MAKE:-make}
case_file=models/shoe/sdnd100a_lagrange.ini

fail() { echo "test-install: FAILED: $*"; exit 1; }

# 1. Exports: the API and nothing else.
nm -D --defined-only "$so" | awk '{print $3}' | sort > /dev/null || fail "nm on $so"
bad=$(nm -D --defined-only "$so" | awk 'NF >= 3 {print $3}' | grep -v '^tvds_' || true)
[ -z "$bad" ] || fail "$so exports symbols without the tvds_ prefix: $(echo $bad | head -c 400)"
napi=$(nm -D --defined-only "$so" | awk 'NF >= 3' | grep -c ' tvds_' || true)
[ "$napi" -gt 100 ] || fail "$so exports only $napi tvds_ functions"
echo "test-install: $so exports $napi symbols, all tvds_"

# 2. A staged install.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
prefix=/opt/tvds
root=$stage/root
$make --no-print-directory -s install BUILD="$build" DESTDIR="$root" PREFIX="$prefix" >/dev/null ||
    fail "make install"
for f in bin/tvds lib/libtvds.a lib/libtvds.so lib/pkgconfig/tvds.pc include/tvds/tvds.h \
    include/tvds/tvds_access.h; do
    [ -e "$root$prefix/$f" ] || fail "make install did not install $f"
done
"$root$prefix/bin/tvds" --version | grep -q "^tvds [0-9]*\.[0-9]*\.[0-9]*$" || fail "tvds --version"

# The staged tree's tvds.pc names PREFIX; pkg-config reads it with prefix redefined.
export PKG_CONFIG_PATH="$root$prefix/lib/pkgconfig"
pc() { pkg-config --define-variable=prefix="$root$prefix" "$@"; }
pc --exists tvds || fail "pkg-config does not find tvds.pc"
echo "test-install: pkg-config finds tvds $(pc --modversion tvds)"

# 3. Shared.
${CC:-cc} -o "$stage/prog_shared" tests/install/prog.c $(pc --cflags --libs tvds) ||
    fail "external program: build against the shared library"
readelf -d "$stage/prog_shared" | grep -q 'NEEDED.*libtvds\.so\.[0-9]' ||
    fail "prog_shared does not load libtvds.so.MAJOR"
LD_LIBRARY_PATH="$root$prefix/lib" "$stage/prog_shared" "$case_file" > "$stage/out_shared" ||
    fail "prog_shared: $(cat "$stage/out_shared")"
cat "$stage/out_shared"

# 4. Static: the installed archive defines tvds_ symbols only (internal ones made local), and a
# tree with the archive only, pkg-config --static for the private dependencies.
bad=$(nm -g --defined-only "$root$prefix/lib/libtvds.a" | awk 'NF >= 3 {print $3}' | grep -v '^tvds_' || true)
[ -z "$bad" ] || fail "the installed libtvds.a defines symbols without the tvds_ prefix: $(echo $bad | head -c 400)"
rm -f "$root$prefix"/lib/libtvds.so*
${CC:-cc} -o "$stage/prog_static" tests/install/prog.c $(pc --static --cflags --libs tvds) ||
    fail "external program: build against the static library"
if readelf -d "$stage/prog_static" | grep -q 'NEEDED.*libtvds'; then
    fail "prog_static needs libtvds.so"
fi
"$stage/prog_static" "$case_file" > "$stage/out_static" || fail "prog_static"
cmp -s "$stage/out_shared" "$stage/out_static" || fail "static and shared programs differ"

# 5. Uninstall leaves no file behind.
$make --no-print-directory -s uninstall BUILD="$build" DESTDIR="$root" PREFIX="$prefix" >/dev/null ||
    fail "make uninstall"
left=$(find "$root" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "test-install: ok (exports, shared and static programs, uninstall)"
