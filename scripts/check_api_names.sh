#!/usr/bin/env bash
# Every public name of the layer is in docs/api.md (issue 26 item 4).
# A public-looking name is an identifier in the installed headers (targetDP.h,
# the backends' headers, targetDP/*.h but the library's own interface
# targetDP_internal.h and targetDP_error.h, which are not installed) that
# starts with TDP_, TARGET_, TARGETDP_, tdp, target or copy<Upper> and does
# not end in `_` (internal names do); comments, strings, include guards
# (TARGETDP_*_H) and the pieces of a ## paste are left out. It is documented
# when docs/api.md names it (as a word, or as -DNAME), or, for a typed name
# (copyToTargetSitesFloat, targetLongMax, targetBlockMinInt), when api.md
# names its pattern (copyToTargetSites<Type>, target<Type>Sum/Min/Max,
# targetBlock<Op><Type>).
#   scripts/check_api_names.sh [header...]   (default: the installed headers)
#   EXAMPLES=1: also list the documented names that no ```c block of
#   docs/api.md uses (a report: it does not change the exit status).
# Prints each undocumented name with the header that has it; exit 1 if any.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
DOC=${API_DOC:-docs/api.md}
if [ $# -eq 0 ]; then
  set -- targetDP.h targetDP_C.h targetDP_CUDA.h
  for h in targetDP/targetDP_*.h; do
    case $h in */targetDP_internal.h | */targetDP_error.h) ;; *) set -- "$@" "$h" ;; esac
  done
fi
[ -f "$DOC" ] || { echo "check_api_names: no $DOC" >&2; exit 2; }
EXAMPLES=${EXAMPLES:-0} perl -e '
  my $doc = shift @ARGV;
  open my $dh, "<", $doc or die "$doc: $!\n";
  my $d = do { local $/; <$dh> };
  my %code;  # words used in the ```c blocks (the examples)
  my ($in, $lang) = (0, "");
  for (split /\n/, $d) {
    if (/^```(\w*)/) { ($in, $lang) = $in ? (0, "") : (1, $1); next; }
    next unless $in && ($lang eq "c" || $lang eq "cpp");
    $code{$_} = 1 for /\b(\w+)\b/g;
  }
  my $types = qr/DoubleComplex|FloatComplex|Double|Float|Int|Long/;
  sub documented {
    my $n = shift;
    return 1 if $d =~ /(?<![\w])(?:-D)?\Q$n\E(?![\w])/ || $d =~ /-D\Q$n\E\b/;
    if ($n =~ /^(\w*?)($types)(\w*)$/) {
      my ($pre, $suf) = ($1, $3);
      return 1 if index($d, "$pre<Type>$suf") >= 0;
      return 1 if $pre eq "target" && $suf =~ /^(Sum|Min|Max)$/
                  && index($d, "target<Type>Sum/Min/Max") >= 0;
      (my $op = $pre) =~ s/(Add|Min|Max)$/<Op>/;
      return 1 if $op ne $pre && index($d, "$op<Type>$suf") >= 0;
    }
    return 0;
  }
  my (%where, $bad);
  for my $f (@ARGV) {
    open my $fh, "<", $f or die "$f: $!\n";
    my $s = do { local $/; <$fh> };
    $s =~ s{/\*.*?\*/}{ }gs;
    $s =~ s{//[^\n]*}{}g;
    $s =~ s{"(?:[^"\\\n]|\\.)*"}{""}g;
    $s =~ s{\w*\s*##\s*\w*(\s*##\s*\w*)*}{ }g;  # the pieces of a paste
    while ($s =~ /\b((?:TDP_|TARGETDP_|TARGET_|tdp|target|copy[A-Z])\w*)/g) {
      my $n = $1;
      next if $n =~ /_$/ || $n =~ /^TARGETDP_(?:\w+_)?H$/;
      $where{$n} //= $f;
    }
  }
  for my $n (sort keys %where) {
    next if documented($n);
    print "undocumented: $n ($where{$n}): add it to $doc, or end it in _ if internal\n";
    $bad++;
  }
  if ($ENV{EXAMPLES}) {  # a typed name counts as shown when a name of its pattern is
    my %shown;
    for my $n (keys %where) {
      (my $p = $n) =~ s/(?:DoubleComplex|FloatComplex|Double|Float|Int|Long)(?=[A-Z]|$)/<Type>/;
      $shown{$p} ||= $code{$n};
    }
    for my $n (sort keys %where) {
      (my $p = $n) =~ s/(?:DoubleComplex|FloatComplex|Double|Float|Int|Long)(?=[A-Z]|$)/<Type>/;
      next if !documented($n) || $code{$n} || ($p ne $n && $shown{$p});
      print "no example: $n ($where{$n})\n";
    }
  }
  exit($bad ? 1 : 0);
' "$DOC" "$@"
