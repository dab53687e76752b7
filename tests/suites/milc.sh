#!/usr/bin/env bash
# Suite: the staggered CG solver (apps/milc, docs/milc.md) at small sizes.
# Validation (apps/milc/check.c, in every build): random links are SU(3);
# fields identical for any decomposition; free field: D^2 on plane waves
# and the CG solution vs the momentum-space answer (1e-10); D
# anti-Hermitian (1e-12); gauge covariance of D and of the solution
# (1e-10); random field: true residual <= tol; single precision storage:
# true residual <= tol, solution = double's to cond(M) tol. Portability: the same solve
# in AOSOA (VVL 4 and 8), SOA VVL 1, AOS VVL 4 and 2 OpenMP threads takes
# the same iterations and agrees to 1e-12; so does it on 2, 4 and 8 MPI
# ranks in decompositions that split every axis, where the solution and the
# residuals are bitwise those of one rank (exact global sums, issue 25 item
# 9; on 904b6c2 they differed in the last bits); one rank exchanges no
# halo (undecomposed axes wrap in the kernels). Gauge files: written, read back
# bitwise and by another layout; flipped byte, truncation, another lattice,
# another file refused. Bad input is refused with a message; an
# unconverged solve exits 1. Also: bench_su3 (mult_su3_nn) validates and
# catches a planted error; CUDA build warning-free; every milc and
# bench_su3 kernel free of local memory (ptxas: 0-byte stack frame, no spills).
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - milc suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi

# ---------------------------------------------------------------- builds
declare -A B
configs=("AOSOA 4" "AOSOA 8" "SOA 1" "AOS 4")
appBuilds milc "${configs[@]}"
ref=${B[AOSOA-4]:-}
if [ -z "$ref" ]; then
  echo "not ok - milc suite: the default build failed, nothing else can run"
  exit 0
fi

# ---------------------------------------------------------------- validation
# Every PASS/FAIL line of milccheck is one check, named with its build.
for cfg in "${configs[@]}"; do
  set -- $cfg
  b=${B[$1-$2]:-}
  [ -z "$b" ] && continue
  mpirun --oversubscribe -np 1 "$b/milccheck" >"$tmp/check-$1-$2.log" 2>&1
  rc=$?
  n=$(grep -c -E "^(PASS|FAIL): " "$tmp/check-$1-$2.log")
  while IFS= read -r line; do
    case $line in
      PASS:*) ok "${line#PASS: } [$1 VVL=$2]" ;;
      FAIL:*) notok "${line#FAIL: } [$1 VVL=$2]" ;;
    esac
  done <"$tmp/check-$1-$2.log"
  if [ "$rc" -ne 0 ] || [ "$n" -lt 11 ]; then
    notok "milccheck ran all checks and exited 0 [$1 VVL=$2] ($n checks, exit $rc)" \
      "$tmp/check-$1-$2.log"
  fi
done

# ---------------------------------------------------------------- agreement
# Mass 0.5 and tol 1e-13: two solutions that both meet the tolerance differ
# by less than cond(M) * tol ~ 1e-12, whatever the rounding of the build.
solve=(--size 4,4,6,8 --mass 0.5 --tol 1e-13 --seed 3 --print_every 0)
milc() { # milc BUILD OUT [options]: one-rank run, log in $tmp/OUT.log
  local b=$1 out=$2
  shift 2
  mpirun --oversubscribe -np 1 "$b/milc" "$@" >"$tmp/$out.log" 2>&1
}
iters() { grep -o "iterations [0-9]*" "$tmp/$1.log" | head -n 1; }
if milc "$ref" ref "${solve[@]}" --save "$tmp/ref.bin" && grep -q "^CG converged" "$tmp/ref.log"; then
  ok "reference solve converges ($(iters ref), $(grep -o 'true residual [^,]*' "$tmp/ref.log"))"
  same() { # same NAME OUT
    if [ "$(iters "$2")" != "$(iters ref)" ]; then
      notok "$1: same iteration count as AOSOA VVL=4 ($(iters "$2") vs $(iters ref))" "$tmp/$2.log"
    elif "$ref/milccheck" --compare "$tmp/ref.bin" "$tmp/$2.bin" 1e-12 >"$tmp/cmp.log" 2>&1; then
      ok "$1: same iterations, solution within 1e-12 of AOSOA VVL=4 ($(cat "$tmp/cmp.log"))"
    else
      notok "$1: solution within 1e-12 of AOSOA VVL=4" "$tmp/cmp.log"
    fi
  }
  for cfg in "AOSOA 8" "SOA 1" "AOS 4"; do
    set -- $cfg
    b=${B[$1-$2]:-}
    [ -n "$b" ] && milc "$b" "$1-$2" "${solve[@]}" --save "$tmp/$1-$2.bin" && same "$1 VVL=$2" "$1-$2"
  done
  OMP_NUM_THREADS=2 milc "$ref" t2 "${solve[@]}" --save "$tmp/t2.bin" && same "2 OpenMP threads" t2
  # Same build, other thread or rank counts: bitwise the same solution and
  # CG line (exact sums make every scalar of CG independent of the split).
  cgline() { grep -o "^CG [a-zA-Z ]*: iterations [0-9]*, restarts [0-9]*, |r|/|b| [^,]*, true residual [^,]*" "$tmp/$1.log"; }
  bitwise() { # bitwise NAME OUT
    if [ -n "$(cgline "$2")" ] && [ "$(cgline "$2")" = "$(cgline ref)" ] &&
       cmp -s "$tmp/ref.bin" "$tmp/$2.bin"; then
      ok "$1: bitwise the 1-rank solution and CG line"
    else
      notok "$1: bitwise the 1-rank solution and CG line ($(cgline "$2") vs $(cgline ref))" "$tmp/$2.log"
    fi
  }
  [ -f "$tmp/t2.bin" ] && bitwise "2 OpenMP threads" t2
  # MPI: 2, 4 and 8 ranks, every axis split somewhere (z = 6 splits into
  # no even blocks), the halo module's site-list faces. One OpenMP thread
  # per rank: ranks outnumber the cores here.
  mpi() { # mpi BUILD NP DECOMP OUT
    OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 TARGETDP_QUIET=1 timeout -k 5 60 \
      mpirun --oversubscribe -np "$2" "$1/milc" "${solve[@]}" --decomposition "$3" \
      --save "$tmp/$4.bin" >"$tmp/$4.log" 2>&1
  }
  for run in "2 2,1,1,1" "2 1,2,1,1" "2 1,1,1,2" "4 2,2,1,1" "4 1,1,1,4" "4 2,1,1,2" \
             "4 0,0,0,0" "8 2,2,1,2"; do
    set -- $run
    out=np$1-${2//,/x}
    if mpi "$ref" "$1" "$2" "$out"; then
      same "$1 ranks as $(grep -o 'rank(s) as [0-9 x]*' "$tmp/$out.log" | sed 's/rank(s) as //')" "$out"
      bitwise "$1 ranks as $(grep -o 'rank(s) as [0-9 x]*' "$tmp/$out.log" | sed 's/rank(s) as //')" "$out"
    else
      notok "$1 ranks, decomposition $2: solve ran" "$tmp/$out.log"
    fi
  done
  # Only the axes split over ranks have a halo; the others wrap in the
  # kernels. One rank: no exchange at all (the halo row counts none, and no
  # halo is made: the module logs each one it makes unless TARGETDP_QUIET);
  # 2 ranks as 2x1x1x1: one exchange per application of D (x only).
  halo_calls() { awk '$1 == "#" && $2 == "halo" { print $3 }' "$tmp/$1.log"; }
  dslash_calls() { awk '$1 == "#" && $2 == "dslash" { print $3 }' "$tmp/$1.log"; }
  loud() { # loud NP DECOMP OUT: a short solve, the halo module's log on
    env -u TARGETDP_QUIET OMPI_MCA_mpi_yield_when_idle=1 timeout -k 5 60 mpirun --oversubscribe \
      -np "$1" "$ref/milc" --size 4,4,6,8 --mass 0.5 --print_every 0 --decomposition "$2" \
      >"$tmp/$3.log" 2>&1
  }
  if loud 1 1,1,1,1 halo1 && [ "$(halo_calls halo1)" = 0 ] && [ "$(dslash_calls halo1)" -gt 0 ] &&
     ! grep -q "targetDP_halo" "$tmp/halo1.log"; then
    ok "one rank: no halo exchange ($(dslash_calls halo1) applications of D, 0 exchanges, no halo made)"
  else
    notok "one rank: no halo exchange (halo calls '$(halo_calls halo1)')" "$tmp/halo1.log"
  fi
  if loud 2 2,1,1,1 halo2 && [ "$(halo_calls halo2)" = "$(dslash_calls halo2)" ] &&
     [ "$(halo_calls halo2)" -gt 0 ] && grep -q "^targetDP_halo: 2 ranks as 2x1x1x1" "$tmp/halo2.log"; then
    ok "2 ranks as 2x1x1x1: one halo exchange per application of D ($(halo_calls halo2))"
  else
    notok "2 ranks as 2x1x1x1: one halo exchange per application of D" "$tmp/halo2.log"
  fi
  b=${B[SOA-1]:-}
  [ -n "$b" ] && mpi "$b" 4 1,2,1,2 soa-np4 && same "SOA VVL=1, 4 ranks as 1x2x1x2" soa-np4
else
  notok "reference solve converges" "$tmp/ref.log"
fi
if OMP_NUM_THREADS=1 TARGETDP_QUIET=1 mpirun --oversubscribe -np 4 "$ref/milc" --size 4,4,6,8 \
     --precision single --mass 0.2 --tol 1e-5 --print_every 0 --decomposition 1,2,1,2 \
     >"$tmp/single4.log" 2>&1 && grep -q "^CG converged" "$tmp/single4.log" &&
   [ "$(grep -o 'iterations [0-9]*' "$tmp/single4.log" | head -n 1)" = \
     "$(OMP_NUM_THREADS=1 mpirun --oversubscribe -np 1 "$ref/milc" --size 4,4,6,8 --precision single \
        --mass 0.2 --tol 1e-5 --print_every 0 2>&1 | grep -o 'iterations [0-9]*' | head -n 1)" ]; then
  ok "single precision on 4 ranks (float faces): converges in the iterations of 1 rank"
else
  notok "single precision on 4 ranks (float faces): converges in the iterations of 1 rank" "$tmp/single4.log"
fi

# The host paths and CG kernels of the performance work (docs/milc.md,
# "Where the time went"): every --timing and --cg gives the same solution,
# bitwise; --runs solves once per item, one table and summary each.
variants_ok=1
for v in "events fused" "sync classic" "events classic" "sync fused" "events ahead" "sync ahead"; do
  set -- $v
  if ! milc "$ref" "v-$1-$2" "${solve[@]}" --timing "$1" --cg "$2" --save "$tmp/v-$1-$2.bin" ||
     ! "$ref/milccheck" --compare "$tmp/v-events-fused.bin" "$tmp/v-$1-$2.bin" 0 >"$tmp/cmp.log" 2>&1; then
    variants_ok=0
    notok "--timing $1 --cg $2: the same solution as the default, bitwise" "$tmp/v-$1-$2.log"
  fi
done
[ "$variants_ok" = 1 ] && ok "--timing events|sync x --cg fused|classic|ahead: the same solution, bitwise"
# On 4 ranks too (the sums exact, issue 25; --cg ahead with the sums on
# the target, issue 29): bitwise the 1-rank solution.
for v in classic ahead; do
  if OMP_NUM_THREADS=1 timeout -k 5 60 mpirun --oversubscribe -np 4 "$ref/milc" "${solve[@]}" \
       --cg "$v" --decomposition 2,1,1,2 --save "$tmp/v4-$v.bin" >"$tmp/v4-$v.log" 2>&1 &&
     cmp -s "$tmp/v-events-fused.bin" "$tmp/v4-$v.bin"; then
    ok "--cg $v on 4 ranks: bitwise the 1-rank solution"
  else
    notok "--cg $v on 4 ranks: bitwise the 1-rank solution" "$tmp/v4-$v.log"
  fi
done
# Issue 29: several ranks with the sums kept on the target (the device
# communicator combines the exact sums' 64-bit digits; on the host its MPI
# path) and the halo queued (transport nccl: MPI standing in for NCCL):
# --cg fused (alpha formed on the target, one sum read per iteration) and
# --cg ahead (no host round trip) give bitwise the solution of --cg classic
# on 1 rank (the sums are exact: any split, the same bits); the log says
# where the sums were combined. 2 ranks (1,1,1,2), 4 ranks (1,1,1,4 and
# 1,1,2,2: the issue's splits of a 4-D lattice).
solve4=(--size 4,4,4,8 --mass 0.5 --tol 1e-13 --seed 3 --print_every 0)
milc "$ref" ds-ref "${solve4[@]}" --cg classic --save "$tmp/ds-ref.bin"
for run in "2 1,1,1,2" "4 1,1,1,4" "4 1,1,2,2"; do
  set -- $run
  for t in direct nccl put; do
    ds_ok=1
    for cg in classic fused ahead; do
      out=ds-$1-${2//,/}-$t-$cg
      if ! TARGETDP_HALO=$t OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 timeout -k 5 60 \
           mpirun --oversubscribe -np "$1" "$ref/milc" "${solve4[@]}" --decomposition "$2" --cg "$cg" \
           --save "$tmp/$out.bin" >"$tmp/$out.log" 2>&1 ||
         ! cmp -s "$tmp/ds-ref.bin" "$tmp/$out.bin" ||
         ! grep -q "^# global sums: $([ $cg = classic ] && echo host || echo device).*halo transport: $t" "$tmp/$out.log"; then
        ds_ok=0
        notok "$1 ranks ($2), halo $t, --cg $cg: bitwise classic's solution on 1 rank" "$tmp/$out.log"
      fi
    done
    [ "$ds_ok" = 1 ] && ok "$1 ranks ($2), halo $t: --cg classic, and fused and ahead with the sums on the target: bitwise classic's solution on 1 rank"
  done
done
# The sums by stream-ordered flags (TARGETDP_DEVSUM=flags, through a shared
# window on the host) with the put halo: --cg fused and ahead bitwise
# classic's 1-rank solution, on 2 (1,1,1,2) and 4 ranks (1,1,2,2).
fl_ok=1
for run in "2 1,1,1,2" "4 1,1,2,2"; do
  set -- $run
  for cg in fused ahead; do
    out=fl-$1-$cg
    if ! TARGETDP_HALO=put TARGETDP_DEVSUM=flags OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 \
         timeout -k 5 60 mpirun --oversubscribe -np "$1" "$ref/milc" "${solve4[@]}" --decomposition "$2" \
         --cg "$cg" --save "$tmp/$out.bin" >"$tmp/$out.log" 2>&1 ||
       ! cmp -s "$tmp/ds-ref.bin" "$tmp/$out.bin" ||
       ! grep -q "^# global sums: device.*sums by flags.*halo transport: put" "$tmp/$out.log"; then
      fl_ok=0
      notok "$1 ranks ($2), put halo, sums by flags, --cg $cg: bitwise classic's solution on 1 rank" "$tmp/$out.log"
    fi
  done
done
# --interior_share (targetStreamSetShare on D's interior stream): the
# interior sweep's grid shrinks on a GPU; on any backend the same bits (2
# ranks 1,1,1,2, put halo, --cg ahead) and the share named in the log.
out=share-2
if TARGETDP_HALO=put OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1 timeout -k 5 60 \
     mpirun --oversubscribe -np 2 "$ref/milc" "${solve4[@]}" --decomposition 1,1,1,2 --cg ahead \
     --interior_share 0.25 --save "$tmp/$out.bin" >"$tmp/$out.log" 2>&1 &&
   cmp -s "$tmp/ds-ref.bin" "$tmp/$out.bin" &&
   grep -q "^# global sums: device.*halo transport: put; interior share 0.25" "$tmp/$out.log"; then
  ok "--interior_share 0.25 on 2 ranks (put halo, --cg ahead): bitwise classic's solution on 1 rank, the share in the log"
else
  notok "--interior_share 0.25 on 2 ranks: bitwise classic's solution on 1 rank, the share in the log" "$tmp/$out.log"
fi
[ "$fl_ok" = 1 ] && ok "put halo and sums by flags (TARGETDP_DEVSUM=flags), 2 and 4 ranks: --cg fused and ahead bitwise classic's solution on 1 rank"
# --cg merged (Chronopoulos & Gear: one global sum an iteration): not the
# others' bits, but the same iterations (+-1) and the solution of classic to
# 1e-12 (cond(M) tol), and on 2 (1,1,1,2) and 4 ranks (1,1,2,2) bitwise its
# own on 1 rank; in single precision with restarts it converges; the
# iteration limit is kept (7).
mg_ok=1
for run in "1 1,1,1,1" "2 1,1,1,2" "4 1,1,2,2"; do
  set -- $run
  out=mg-$1
  if ! TARGETDP_HALO=nccl OMP_NUM_THREADS=1 timeout -k 5 60 mpirun --oversubscribe -np "$1" "$ref/milc" \
       "${solve4[@]}" --decomposition "$2" --cg merged --save "$tmp/$out.bin" >"$tmp/$out.log" 2>&1 ||
     ! "$ref/milccheck" --compare "$tmp/ds-ref.bin" "$tmp/$out.bin" 1e-12 >/dev/null 2>&1 ||
     { [ "$1" != 1 ] && ! cmp -s "$tmp/mg-1.bin" "$tmp/$out.bin"; } ||
     ! awk -v a="$(iters ds-ref | cut -d' ' -f2)" -v b="$(iters "$out" | cut -d' ' -f2)" \
         'BEGIN { exit !(b >= a - 1 && b <= a + 1 && b > 0) }'; then
    mg_ok=0
    notok "--cg merged on $1 ranks ($2): classic's iterations +-1 and solution to 1e-12, 1 rank's bitwise" "$tmp/$out.log"
  fi
done
[ "$mg_ok" = 1 ] && ok "--cg merged (one global sum an iteration) on 1, 2, 4 ranks: classic's iterations and solution to 1e-12, bitwise the same on any rank count"
milc "$ref" mg-s --size 4,4,6,8 --precision single --mass 0.2 --tol 1e-6 --print_every 0 --cg merged
s1=$?
milc "$ref" mg-7 --size 4 --maxiter 7 --print_every 0 --cg merged
s7=$?
if [ "$s1" -eq 0 ] && grep -q "^CG converged: .* restarts [1-9]" "$tmp/mg-s.log" &&
   [ "$s7" -eq 1 ] && grep -q "^CG NOT converged: iterations 7," "$tmp/mg-7.log"; then
  ok "--cg merged: single precision with restarts converges; the iteration limit is kept"
else
  notok "--cg merged: single precision with restarts converges; the iteration limit is kept" "$tmp/mg-s.log"
fi

# --breakdown: one row per solve, where an iteration's time goes
rm -f "$tmp/bd.csv"
if TARGETDP_HALO=nccl OMP_NUM_THREADS=1 timeout -k 5 60 mpirun --oversubscribe -np 2 "$ref/milc" \
     "${solve4[@]}" --decomposition 1,1,1,2 --runs events:ahead,events:fused --breakdown "$tmp/bd.csv" \
     >"$tmp/bd.log" 2>&1 && [ "$(grep -c "^# breakdown per iteration" "$tmp/bd.log")" = 2 ] &&
   awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { n++; if (!($c["ranks"] == 2 && $c["pt"] == 2 && $c["local"] == "4x4x4x4" &&
                         $c["iterations"] > 0 && $c["us_per_iter"] > 0 && $c["dslash_us"] > 0 &&
                         $c["reduce_us"] > 0 && $c["exch_us"] > 0 && $c["halo_path"] == "nccl" &&
                         $c["cg"] == (n == 1 ? "ahead" : "fused"))) bad = 1 }
            END { exit !(n == 2 && !bad) }' "$tmp/bd.csv"; then
  ok "--breakdown: a row per solve (ahead, fused), D, vector kernels, sums and exchange per iteration"
else
  notok "--breakdown: a row per solve (ahead, fused), D, vector kernels, sums and exchange per iteration" "$tmp/bd.log"
fi

# --cg ahead on 1 rank; single precision with its restarts: the same
# solution as classic, bitwise
if milc "$ref" ahead-s --size 4,4,6,8 --precision single --mass 0.2 --tol 1e-6 --print_every 0 \
     --cg ahead --save "$tmp/ahead-s.bin" && grep -q "restarts [1-9]" "$tmp/ahead-s.log" &&
   milc "$ref" classic-s --size 4,4,6,8 --precision single --mass 0.2 --tol 1e-6 --print_every 0 \
     --cg classic --save "$tmp/classic-s.bin" &&
   "$ref/milccheck" --compare "$tmp/classic-s.bin" "$tmp/ahead-s.bin" 0 >/dev/null 2>&1; then
  ok "--cg ahead, single precision with restarts: the same solution as classic, bitwise"
else
  notok "--cg ahead, single precision with restarts: the same solution as classic, bitwise" "$tmp/ahead-s.log"
fi
if milc "$ref" runs "${solve[@]}" --runs sync:classic,events:fused,sync:fused --save "$tmp/runs.bin" &&
   [ "$(grep -c "^CG converged" "$tmp/runs.log")" = 3 ] && [ "$(grep -c "^# dslash " "$tmp/runs.log")" = 3 ] &&
   grep -q "^# run 3 of 3: timing sync, cg fused" "$tmp/runs.log" &&
   "$ref/milccheck" --compare "$tmp/v-events-fused.bin" "$tmp/runs.bin" 0 >/dev/null 2>&1; then
  ok "--runs: three solves on the same fields, a table and summary each, the same solution"
else
  notok "--runs: three solves on the same fields, a table and summary each, the same solution" "$tmp/runs.log"
fi

if milc "$ref" prog --size 4,4,4,4 --print_every 5 --mass 0.2 --triad 100000 &&
   grep -q "^# triad [0-9.]* GB/s (all ranks together, this run); CG [0-9.]*% of it" "$tmp/prog.log" &&
   grep -q "^iter      5  |r|/|b| " "$tmp/prog.log" && grep -q "^# dslash " "$tmp/prog.log" &&
   grep -q "^CG converged: iterations [0-9]*, .* true residual .* GFLOP/s, .* GB/s" "$tmp/prog.log"; then
  ok "progress lines, per-kernel table, % of the run's triad and summary"
else
  notok "progress lines, per-kernel table, % of the run's triad and summary" "$tmp/prog.log"
fi
if milc "$ref" single --size 4,4,6,8 --precision single --mass 0.2 --tol 1e-5 --print_every 0 &&
   grep -q "^CG converged" "$tmp/single.log" &&
   awk '/^CG converged/ { for (i = 1; i < NF; i++) if ($i == "true") t = $(i + 2) + 0 }
        END { exit !(t > 0 && t <= 1e-5) }' "$tmp/single.log"; then
  ok "single precision: true residual <= 1e-5 ($(grep -o 'restarts [0-9]*, .*true residual [^,]*' "$tmp/single.log"))"
else
  notok "single precision: true residual <= 1e-5" "$tmp/single.log"
fi
if milc "$ref" single9 --size 4,4,6,8 --precision single --mass 0.1 --tol 1e-9 --print_every 0; then
  notok "single precision below its rounding floor: exits non-zero" "$tmp/single9.log"
elif grep -q "single precision cannot reach this tolerance here: use double" "$tmp/single9.log"; then
  ok "single precision below its rounding floor (tol 1e-9): restarts, then exits 1 and says why"
else
  notok "single precision below its rounding floor: exits 1 and says why" "$tmp/single9.log"
fi
if milc "$ref" short --size 4,4,4,4 --maxiter 5 --print_every 0; then
  notok "an unconverged solve exits non-zero" "$tmp/short.log"
elif grep -q "milc: error: not converged in 5 iterations" "$tmp/short.log"; then
  ok "an unconverged solve exits non-zero with a message"
else
  notok "an unconverged solve exits non-zero with a message" "$tmp/short.log"
fi

# ---------------------------------------------------------------- gauge files
gsolve=(--size 4,4,6,8 --seed 5 --mass 0.5 --tol 1e-13 --print_every 0)
if milc "$ref" gw "${gsolve[@]}" --save_gauge "$tmp/g.bin" --save "$tmp/gw.bin" &&
   [ -f "$tmp/g.bin" ] && [ ! -e "$tmp/g.bin.tmp" ]; then
  ok "gauge field written ($(stat -c %s "$tmp/g.bin") bytes, no temporary left)"
  if milc "$ref" gr "${gsolve[@]}" --gauge_file "$tmp/g.bin" --save "$tmp/gr.bin" &&
     [ "$(iters gr)" = "$(iters gw)" ] &&
     "$ref/milccheck" --compare "$tmp/gw.bin" "$tmp/gr.bin" 0 >"$tmp/cmp.log" 2>&1; then
    ok "gauge field read back: the same solve, bitwise ($(iters gr))"
  else
    notok "gauge field read back: the same solve, bitwise" "$tmp/gr.log"
  fi
  soa=${B[SOA-1]:-}
  if [ -n "$soa" ] && milc "$soa" gs "${gsolve[@]}" --gauge_file "$tmp/g.bin" --save "$tmp/gs.bin" &&
     [ "$(iters gs)" = "$(iters gw)" ] &&
     "$ref/milccheck" --compare "$tmp/gw.bin" "$tmp/gs.bin" 1e-12 >"$tmp/cmp.log" 2>&1; then
    ok "gauge file written by AOSOA VVL=4 read by SOA VVL=1: same iterations, solution to 1e-12"
  else
    notok "gauge file written by AOSOA VVL=4 read by SOA VVL=1" "$tmp/gs.log"
  fi
else
  notok "gauge field written" "$tmp/gw.log"
fi

# ---------------------------------------------------------------- bad input
if mpirun --oversubscribe -np 1 "$ref/milc" --help >"$tmp/help.log" 2>&1 &&
   [ "$(grep -c -E '^  --(size|decomposition|mass|tol|maxiter|seed|precision|gauge|print_every|save|gauge_file|save_gauge|triad) ' "$tmp/help.log")" -eq 13 ]; then
  ok "--help lists every option and exits 0"
else
  notok "--help lists every option and exits 0" "$tmp/help.log"
fi
refused() { # refused NAME PATTERN NP ARGS...: exits 2, says PATTERN, no solve
  local name=$1 pattern=$2 np=$3
  shift 3
  mpirun --oversubscribe -np "$np" "$ref/milc" "$@" >"$tmp/bad.log" 2>&1
  local rc=$?
  if [ "$rc" -eq 0 ]; then
    notok "$name: refused (it ran)" "$tmp/bad.log"
  elif ! grep -q "$pattern" "$tmp/bad.log"; then
    notok "$name: refused with a clear message (wanted '$pattern')" "$tmp/bad.log"
  elif grep -q "^iter " "$tmp/bad.log"; then
    notok "$name: refused before the solve" "$tmp/bad.log"
  else
    ok "$name: refused ($(grep -o "$pattern.*" "$tmp/bad.log" | head -n 1 | head -c 100))"
  fi
}
refused "odd lattice extent" "size along z must be even" 1 --size 4,4,5,4
refused "size with three numbers" "size needs four integers" 1 --size 4,4,4
refused "size that is not a number" "size needs four integers" 1 --size big
refused "zero mass" "mass must be a finite number > 0" 1 --mass 0
refused "negative mass" "mass must be a finite number > 0" 1 --mass -0.1
refused "mass nan" "mass: 'nan' is out of range (a finite number is needed)" 1 --mass nan
refused "tolerance 1" "tol must be in (0, 1)" 1 --tol 1
refused "malformed tolerance" "tol needs a number" 1 --tol 1e-8x
refused "zero iterations" "maxiter must be an integer in" 1 --maxiter 0
refused "malformed seed" "seed needs an integer" 1 --seed 12ab
refused "unknown precision" "precision must be double or single" 1 --precision quad
refused "unknown gauge" "gauge must be random or unit" 1 --gauge hot
refused "unknown option" "unknown option '--mas'" 1 --mas 0.1
refused "interior share 0" "interior_share must be in (0, 1], not 0" 1 --interior_share 0
refused "interior share above 1" "interior_share must be in (0, 1], not 1.5" 1 --interior_share 1.5
refused "decomposition for another rank count" "cannot be made from 1 MPI ranks" 1 --decomposition 1,1,2,2
refused "decomposition into odd local extents" "does not split into 4 even local extents" 4 \
  --size 4,4,4,4 --decomposition 1,1,1,4
refused "ranks that divide no extent into even blocks" "cannot be split evenly over 3 MPI ranks" 3 \
  --size 4,4,4,4
refused "unknown timing" "timing must be events or sync" 1 --timing gpu
refused "unknown cg variant" "cg must be fused, classic, ahead or merged" 1 --cg fast
refused "malformed runs" "runs must be 1 to 32 items" 1 --runs events

if [ -f "$tmp/g.bin" ]; then
  cp "$tmp/g.bin" "$tmp/flip.bin"
  byte=$(od -An -tu1 -j 5000 -N 1 "$tmp/flip.bin" | tr -d ' ') # invert one byte of the links
  printf "\\$(printf %o $((byte ^ 255)))" | dd of="$tmp/flip.bin" bs=1 seek=5000 conv=notrunc 2>/dev/null
  cmp -s "$tmp/flip.bin" "$tmp/g.bin" && notok "corruption test: inverting a byte must change the file"
  refused "gauge file with one flipped byte" "is corrupt: checksum" 1 --size 4,4,6,8 --gauge_file "$tmp/flip.bin"
  head -c 100000 "$tmp/g.bin" >"$tmp/short.bin"
  refused "truncated gauge file" "is truncated: 100000 bytes" 1 --size 4,4,6,8 --gauge_file "$tmp/short.bin"
  refused "gauge file of another lattice" "holds a 4 x 4 x 6 x 8 lattice, not 4 x 4 x 4 x 8" 1 \
    --size 4,4,4,8 --gauge_file "$tmp/g.bin"
  refused "a file that is not a gauge file" "is not a milc gauge file" 1 --size 4,4,6,8 \
    --gauge_file "$tmp/gw.bin"
fi
refused "missing gauge file" "cannot read gauge file" 1 --gauge_file "$tmp/none.bin"
refused "gauge file in a directory that does not exist" "cannot create '.*no/such/g.bin'" 1 \
  --save_gauge "$tmp/no/such/g.bin"

# ---------------------------------------------------------------- mult_su3_nn benchmark
if make -j2 LAYOUT=AOSOA VVL=4 "$ref/bench_su3" >"$tmp/bsu3.log" 2>&1 && ! grep -q "warning:" "$tmp/bsu3.log" &&
   "$ref/bench_su3" --size 1003 --reps 2 >"$tmp/su3.log" 2>&1 &&
   grep -q "^# all results validated" "$tmp/su3.log" && grep -q "^ratio targetDP/native" "$tmp/su3.log"; then
  ok "bench_su3 (mult_su3_nn) builds, validates both implementations and reports"
else
  notok "bench_su3 (mult_su3_nn) builds, validates both implementations and reports" "$tmp/su3.log"
fi
if "$ref/bench_su3" --size 1003 --reps 2 --inject-error >"$tmp/su3bad.log" 2>&1; then
  notok "bench_su3 --inject-error: a wrong element fails the run" "$tmp/su3bad.log"
elif grep -q "no timings reported" "$tmp/su3bad.log" && ! grep -q "GB/s" "$tmp/su3bad.log"; then
  ok "bench_su3 --inject-error: a wrong element fails the run, no timings"
else
  notok "bench_su3 --inject-error: a wrong element fails the run, no timings" "$tmp/su3bad.log"
fi

# ---------------------------------------------------------------- CUDA build
# Local memory (a stack frame or spills) in these memory-bound kernels is
# traffic the operator cannot afford (targetDP issue 13: kDslashAxpby had
# 88 bytes). ptxas's report of every kernel of apps/milc and bench_su3 comes
# from the CUDA build itself: its two kernel files are compiled first, in
# the build folder, with -Xptxas -v (which changes no object), and the build
# then links them (a second build of them in a folder of its own, for the
# report only, cost make test two nvcc compiles).
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$nvcc" ] || [ ! -f targetDP_CUDA.cu ]; then
  echo "ok - milc builds with TARGET=cuda # SKIP no nvcc"
else
  cb=$(make -s TARGET=cuda milc-build-dir)
  rm -f "$cb/obj/apps/milc/kernels.o" "$cb/obj/benchmarks/su3.o"
  make -j2 TARGET=cuda NVCC="$nvcc -Xptxas -v" "$cb/obj/apps/milc/kernels.o" "$cb/obj/benchmarks/su3.o" \
    >"$tmp/ptxas.log" 2>&1
  ptxas_rc=$?
  if [ "$ptxas_rc" -eq 0 ] && make -j2 TARGET=cuda milc "$cb/bench_su3" >"$tmp/cuda.log" 2>&1 &&
     ! grep -q "warning" "$tmp/cuda.log" "$tmp/ptxas.log"; then
    ok "milc, milccheck and bench_su3 compile and link warning-free with TARGET=cuda"
  else
    cat "$tmp/ptxas.log" >>"$tmp/cuda.log"
    notok "milc, milccheck and bench_su3 compile and link warning-free with TARGET=cuda" "$tmp/cuda.log"
  fi
  if [ "$ptxas_rc" -eq 0 ]; then
    nk=$(grep -c "Compiling entry function" "$tmp/ptxas.log")
    nframe=$(grep -c "bytes stack frame" "$tmp/ptxas.log")
    nclean=$(grep -c "^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$" "$tmp/ptxas.log")
    if [ "$nk" -ge 18 ] && [ "$nframe" -ge "$nk" ] && [ "$nframe" -eq "$nclean" ]; then
      ok "every milc and bench_su3 kernel (CUDA sm_90, double and float): no stack frame, no spills"
    else
      grep -B1 -E "(^| )[1-9][0-9]* bytes (stack frame|spill)" "$tmp/ptxas.log" >"$tmp/ptxas-bad.log"
      notok "every milc and bench_su3 kernel (CUDA sm_90, double and float): no stack frame, no spills ($nclean of $nframe functions clean)" "$tmp/ptxas-bad.log"
    fi
  else
    notok "ptxas report of the milc and bench_su3 kernels" "$tmp/ptxas.log"
  fi
fi
exit 0
