#!/usr/bin/env bash
# The layering of jit/src/codegen (issue 16 item 2): a module may use modules of its own layer
# or of a lower one, never one of a higher layer, and no modules import each other in a cycle.
#
#   4 program                 module (compiles a program), native (its native image),
#                             program (the JIT module and the Program both make)
#   3 work-group functions    group, regions, simd
#   2 function translation    translate, inline, uniform, spin
#   1 instruction families    arith, atomics, collective, composite, control, convert, extinst,
#                             generic, geometric, half, mathfn, image, image_inline, khr_ext, memory, pipe,
#                             printf, robust, robust_group, vector,
#                             and helpers (the Rust functions their code calls)
#   0 foundations             layout (types), driver (the runtime that runs the generated code:
#                             work-item state, fibers, barriers, robust mode's scratch areas,
#                             the collectives' per-thread state), context (the program's compile
#                             context `Ctx`), state (the translator's state `FnTx`, its operand
#                             accessors, the work-group function's `GroupTx`), robust_state
#                             (robust mode's data that `FnTx` holds), pure_loads (which loads
#                             the egraph may place at their uses), block_params (block
#                             parameters equal to another value), test_jit (tests' generated
#                             functions)
#
# The crate root of the code generator (codegen/mod.rs: CompileError, CompileOptions, the
# Program and Kernel it hands out) may be used from any layer.
#
# Prints every import of a higher layer (file, the module it imports, both layers) and the
# import cycles between modules; exits 1 when there is an upward import, a cycle or a module
# missing from the layer table, 0 otherwise. scripts/test.sh runs it.
#   scripts/codegen-layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

exec perl -e '
use strict; use warnings;
my %layer = (
  module => 4, native => 4, program => 4,
  group => 3, regions => 3, simd => 3,
  translate => 2, inline => 2, uniform => 2, spin => 2, promote => 2,
  arith => 1, atomics => 1, composite => 1, control => 1, convert => 1, extinst => 1,
  generic => 1, geometric => 1, half => 1, mathfn => 1, image => 1, khr_ext => 1, memory => 1, printf => 1, vector => 1,
  helpers => 1, collective => 1, robust => 1, pipe => 1, image_inline => 1, robust_group => 1,
  layout => 0, driver => 0, context => 0, state => 0, robust_state => 0, pure_loads => 0, block_params => 0, float_select => 0, test_jit => 0,
);
my %names = (4 => "program", 3 => "work-group functions", 2 => "function translation",
             1 => "instruction families", 0 => "foundations");
my $dir = "jit/src/codegen";
my @files = sort (glob("$dir/*.rs"), glob("$dir/*/*.rs"), glob("$dir/*/*/*.rs"));
my (%edges, @up, @unknown_mod);
for my $f (@files) {
  my $rel = substr($f, length($dir) + 1);
  next if $rel eq "mod.rs";
  my @parts = split m{/}, $rel;
  my $mod = $parts[0]; $mod =~ s/\.rs$//;
  # depth: how many "super::" lead from this file to codegen (a file in codegen: 1; in a
  # subfolder: 2; a subfolder mod.rs: 1; a file in the folder of a module, simd/emit/vmem.rs: 3).
  my $depth = scalar(@parts) - ($parts[-1] eq "mod.rs" ? 1 : 0);
  if (!exists $layer{$mod}) { push @unknown_mod, $rel; next; }
  open my $fh, "<", $f or die "$f: $!";
  local $/; my $text = <$fh>; close $fh;
  $text =~ s{//[^\n]*}{}g;                       # comments (doc links are not imports)
  $text =~ s{"(?:[^"\\]|\\.)*"}{""}gs;           # strings
  my $sup = "super::" x $depth;
  my @refs;
  # Paths to a codegen module: super::...::NAME or crate::codegen::NAME, possibly in a group.
  while ($text =~ /(?<![\w:])(?:crate::codegen::|\Q$sup\E)(\{(?:[^{}]|\{[^{}]*\})*\}|\w+)/g) {
    my $t = $1;
    if ($t =~ /^\{/) {
      $t = substr($t, 1, -1);
      $t =~ s/\{[^{}]*\}//g;
      for my $item (split /,/, $t) {
        $item =~ s/^\s+|\s+$//g;
        push @refs, $1 if $item =~ /^(\w+)/;
      }
    } else { push @refs, $t; }
  }
  # Within a subfolder, super::NAME names a sibling of the same module (no layer change) and
  # super::super:: the codegen modules; one level of super in a codegen/*.rs file is codegen.
  for my $r (@refs) {
    next unless exists $layer{$r};
    next if $r eq $mod;
    $edges{$mod}{$r} = 1;
    if ($layer{$r} > $layer{$mod}) {
      push @up, [$rel, $mod, $r];
    }
  }
}
my $fail = 0;
for my $u (@up) {
  my ($rel, $m, $r) = @$u;
  $fail = 1;
  printf "%-8s %-22s imports %-10s (layer %d %s -> layer %d %s)\n", "UPWARD", $rel, $r,
    $layer{$m}, $names{$layer{$m}}, $layer{$r}, $names{$layer{$r}};
}
for my $u (@unknown_mod) { print "UNLAYERED $u: add its module to the layer table\n"; $fail = 1; }
# Cycles: strongly connected components of the module graph (Tarjan).
my (%index, %low, %on, @stack, @sccs); my $i = 0;
my $strong; $strong = sub {
  my $v = shift; $index{$v} = $low{$v} = $i++; push @stack, $v; $on{$v} = 1;
  for my $w (sort keys %{ $edges{$v} || {} }) {
    if (!exists $index{$w}) { $strong->($w); $low{$v} = $low{$w} if $low{$w} < $low{$v}; }
    elsif ($on{$w}) { $low{$v} = $index{$w} if $index{$w} < $low{$v}; }
  }
  if ($low{$v} == $index{$v}) {
    my @c; my $w;
    do { $w = pop @stack; $on{$w} = 0; push @c, $w; } while ($w ne $v);
    push @sccs, [sort @c] if @c > 1;
  }
};
for my $v (sort keys %layer) { $strong->($v) unless exists $index{$v}; }
for my $c (@sccs) { printf "cycle (%d modules): %s\n", scalar(@$c), join(" ", @$c); $fail = 1; }
printf "%d upward import(s), %d cycle(s)\n", scalar(@up), scalar(@sccs);
exit $fail;
'
