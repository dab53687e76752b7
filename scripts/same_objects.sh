#!/usr/bin/env bash
# Checks that a change leaves the machine code of every translation unit
# the same: each tracked .c/.cu/.cpp that names targetDP is compiled in the
# tree of REF (default HEAD) and in the working tree, in several
# configurations (gcc, clang, g++: layouts, VVL, checked, profile, ILP simd,
# serial; nvcc: PTX), and the code of every function is compared.
#   scripts/same_objects.sh [REF [NEW]]   (NEW: a commit; default the
#   working tree) JOBS (default 2) compiles at once;
#   ONLY=regex keeps the configurations whose name matches; FILES=regex the
#   files; RENAMES=file.sed is applied to REF's code first (a rename of
#   internal names then compares equal: scripts/renames.sed).
#
# What "the same" means. Host objects: `objdump -drwC` of every executable
# section, split per function and sorted by section and name (a change that
# only reorders definitions in a file passes), with the addresses taken out
# (a jump is compared by its target symbol+offset, a relocation by its kind,
# symbol and addend) and the addends of relocations against constant pools
# and string sections (.rodata*, .LC<n>) taken out: their offsets move when
# a string elsewhere changes length (a moved file's __FILE__). PTX (nvcc
# -ptx, device code): comments dropped, demangled, split per .entry/.func and
# sorted; string constants ($str$<n>) unnumbered, the per-compilation hash
# of file-static names (_INTERNAL_<8 hex>_: differs between two builds of
# the same file) taken out; the rest of the module
# (globals, .shared, .const) compared as a sorted set of lines.
# A file that moved is paired with the file of the same name in the other
# tree. Where scripts/same_preprocessed.sh finds the same tokens this finds
# the same code; this one also passes a reorder and a rename, which change
# the tokens but not the program.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
REF=${1:-HEAD}
NEW=${2:-}
JOBS=${JOBS:-2}
. scripts/same_trees.sh
same_trees_unpack
if [ -n "$RENAMES" ]; then RENAMES=$(cd "$(dirname "$RENAMES")" && pwd)/$(basename "$RENAMES"); fi
O="-O3 -march=x86-64-v3"
# name|kind|compiler command (kind: obj = host object, ptx = device code)
configs=(
  "gcc-SOA-vvl8|obj|gcc -std=c99 $O -fopenmp -DTARGETDP_SOA -DVVL=8"
  "gcc-AOSOA-vvl4-check|obj|gcc -std=c99 $O -fopenmp -DTARGETDP_AOSOA -DVVL=4 -DTARGETDP_CHECK"
  "gcc-serial-AOS-vvl1|obj|gcc -std=c99 $O -fopenmp-simd -DTDP_OPENMP_SIMD -DTARGETDP_AOS -DVVL=1"
  "gcc-SOA-vvl4-profile-simd|obj|gcc -std=c99 $O -fopenmp -DTARGETDP_SOA -DVVL=4 -DTARGETDP_PROFILE -DTDP_ILP_SIMD"
  "g++-AOSOA-vvl4|obj|g++ -std=c++17 -x c++ $O -fopenmp -DTARGETDP_AOSOA -DVVL=4"
)
have clang && configs+=(
  "clang-SOA-vvl8|obj|clang -std=c99 $O -fopenmp -DTARGETDP_SOA -DVVL=8"
  "clang-AOSOA-vvl4-check|obj|clang -std=c99 $O -DTARGETDP_AOSOA -DVVL=4 -DTARGETDP_CHECK"
)
[ -x "$NVCC_BIN" ] && configs+=(
  "nvcc-SOA-vvl1|ptx|$NVCC_BIN -x cu -std=c++17 -O3 -arch=sm_90 -DTARGETDP_SOA -DVVL=1 -DTARGET_TPB=256"
  "nvcc-AOSOA-vvl2-check-profile|ptx|$NVCC_BIN -x cu -std=c++17 -O3 -arch=sm_90 -DTARGETDP_AOSOA -DVVL=2 -DTARGETDP_CHECK -DTARGETDP_PROFILE"
)
same_keep_only

pairs=$(same_pairs)

# Host object: one line per instruction, grouped per function, sorted.
norm_obj() { # object renames
  objdump -drwC --no-show-raw-insn "$1" 2>/dev/null | awk '
    /^Disassembly of section / { sec = $4; sub(/:$/, "", sec); next }
    /^[0-9a-f]+ <.*>:$/ { name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name);
                          key = sec " " name; next }
    key == "" { next }
    /^[ \t]*[0-9a-f]+:\t/ {
      line = $0
      sub(/^[ \t]*[0-9a-f]+:[ \t]*/, "", line)          # the address
      gsub(/[ \t][0-9a-f]+: R_/, " R_", line)          # relocations: no offset
      gsub(/[0-9a-f]+ </, "<", line)                    # jump targets: symbol+offset only
      gsub(/\.LC[0-9]+/, ".LC", line)                   # constant pool labels
      gsub(/(\.rodata[^ \t+-]*|\.LC)[-+]0x[0-9a-f]+/, "<const>", line)
      gsub(/[ \t]+/, " ", line)
      print key "\t" line
    }' | { if [ -n "$2" ]; then sed -E -f "$2"; else cat; fi; } | sort -s -t$'\t' -k1,1
}
# PTX: functions sorted by name, the rest as a sorted set.
norm_ptx() { # ptx renames
  sed -e 's|//.*$||' -e '/^[[:space:]]*$/d' -e '/^\.file/d' -e '/^\.loc/d' "$1" | c++filt |
    sed -E -e 's/\$str(\$[0-9]+)?/$str/g' -e 's/_INTERNAL_[0-9a-f]{8}_/_INTERNAL_/g' \
        -e 's/[[:space:]]+/ /g' |
    { if [ -n "$2" ]; then sed -E -f "$2"; else cat; fi; } | awk '
    /^ ?\.(visible |weak )?\.(entry|func)/ { infn = 1; name = $0; depth = 0 }
    infn { print name "\t" $0; n = gsub(/\{/, "{"); m = gsub(/\}/, "}"); depth += n - m
           if (m > 0 && depth == 0) infn = 0; next }
    { print "~\t" $0 }' >"$1.lines"
  grep -v $'^~\t' "$1.lines" | sort -s -t$'\t' -k1,1
  grep $'^~\t' "$1.lines" | sort
  rm -f "$1.lines"
}
export -f norm_obj norm_ptx

# One TU in one tree: its normalised code, or FAILED.
compile() { # tree cfgname kind cmd file outname
  local tree=$1 name=$2 kind=$3 cmd=$4 f=$5 out="$T/out/$2/$1/$6" obj
  mkdir -p "$(dirname "$out")"
  obj="$out.$([ "$kind" = ptx ] && echo ptx || echo o)"
  if [ "$kind" = ptx ]; then
    (cd "$T/$tree" && $cmd -I. -ItargetDP $MPI_INC -ptx "$f" -o "$obj" 2>/dev/null)
  else
    case "$f" in *.cu) echo SKIPPED >"$out"; return ;; esac
    (cd "$T/$tree" && $cmd -I. -ItargetDP $MPI_INC -c "$f" -o "$obj" 2>/dev/null)
  fi
  if [ ! -s "$obj" ]; then echo FAILED >"$out"; return; fi
  local ren=""
  [ "$tree" = ref ] && ren=$RENAMES
  if [ "$kind" = ptx ]; then norm_ptx "$obj" "$ren" >"$out"; else norm_obj "$obj" "$ren" >"$out"; fi
  rm -f "$obj"
}
export -f compile
export T MPI_INC RENAMES
for c in "${configs[@]}"; do
  name=${c%%|*} rest=${c#*|} kind=${rest%%|*} cmd=${rest#*|}
  echo "$pairs" | while read -r nf rf; do
    [ "$nf" = NEWONLY ] && continue
    printf '%s\0%s\0%s\0%s\0%s\0%s\0' ref "$name" "$kind" "$cmd" "$rf" "${nf//\//_}"
    printf '%s\0%s\0%s\0%s\0%s\0%s\0' new "$name" "$kind" "$cmd" "$nf" "${nf//\//_}"
  done
done | xargs -0 -n 6 -P "$JOBS" bash -c 'compile "$@"' _

status=0
echo "$pairs" | awk '$1 == "NEWONLY" { print "new file, no counterpart in " ref ": " $2 }' ref="$REF"
comm -23 <(sed 's|.*/||' "$T/ref.list" | sort) <(sed 's|.*/||' "$T/new.list" | sort) |
  sed "s/^/gone from the working tree (not compared): /"
for c in "${configs[@]}"; do
  name=${c%%|*}
  same=0 differ=0 failed=0 skipped=0 fns=0
  while read -r nf rf; do
    [ "$nf" = NEWONLY ] && continue
    a="$T/out/$name/ref/${nf//\//_}" b="$T/out/$name/new/${nf//\//_}"
    if [ "$(head -c 7 "$a")" = SKIPPED ]; then
      skipped=$((skipped + 1))
    elif [ "$(cat "$a")" = FAILED ] && [ "$(cat "$b")" = FAILED ]; then
      failed=$((failed + 1))
    elif cmp -s "$a" "$b"; then
      same=$((same + 1))
      fns=$((fns + $(cut -f1 "$a" | grep -vx '~' | sort -u | wc -l)))
    else
      differ=$((differ + 1)) status=1
      echo "DIFFERS: $name $nf (ref: $rf)"
      diff "$a" "$b" | head -n 12
    fi
  done <<<"$pairs"
  echo "$name: $same same ($fns functions), $differ differ, $failed not compiled in either tree, $skipped not for this compiler"
done
exit $status
