#!/bin/sh
# second_kernel.sh CHECK_BIN — an OpenBLAS kernel other than the one OpenBLAS picks on this
# machine, that this CPU can execute (make test-kernel, docs/reliability.md): Prescott (SSE3, no
# FMA: runs on every x86-64 CPU) when the native kernel fuses multiply-adds, Haswell (AVX2 +
# FMA) when it does not and the CPU has them, otherwise Core2 (or Prescott when the native one
# is Core2). Prints the native kernel on stderr and the chosen one on stdout.
set -eu
native=$("$1" --blas-kernel)
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
case $(echo "$native" | tr 'A-Z' 'a-z') in
haswell | zen | skylakex | cooperlake | sapphirerapids) k=Prescott ;;
*)
    if has avx2 && has fma; then
        k=Haswell
    elif [ "$(echo "$native" | tr 'A-Z' 'a-z')" = core2 ]; then
        k=Prescott
    else
        k=Core2
    fi
    ;;
esac
echo "second_kernel: native OpenBLAS kernel $native, second kernel $k" >&2
echo "$k"
