#!/bin/bash
# app/make_man.sh S2S VERSION: writes the s2s(1) man page to stdout, made from the binary's own
# --help texts (one section per subcommand), so that the page never drifts from the options.
# Run by the build (app/CMakeLists.txt); installed as share/man/man1/s2s.1.
set -euo pipefail
S2S=$1
VERSION=$2

# CLI11 help -> man: option lines become .TP entries, wrapped lines join their option, the rest
# (description, footer) stays text. Hyphens and backslashes are escaped for troff.
options_to_man() {
  awk '
    function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
    /^Usage:/ || /^Options:/ || /^$/ { next }
    /^  -/ || /^  [a-z]/ {
      line = substr($0, 3)
      intext = 0
      # The name ends at a run of spaces (one space only when it fills its column: "...} Text").
      if (match(line, /  +/) || match(line, /\} /)) {
        cut = substr(line, RSTART, 1) == "}" ? RSTART + 1 : RSTART
        rest = substr(line, RSTART + RLENGTH)
        printf ".TP\n.B %s\n%s\n", esc(substr(line, 1, cut - 1)), esc(rest)
      } else {
        printf ".TP\n.B %s\n", esc(line)
      }
      next
    }
    /^      / { sub(/^ +/, ""); print esc($0); next }
    { if (!intext) print ".PP"; intext = 1; print esc($0) }
  '
}

cat <<HEAD
.TH S2S 1 "" "s2s $VERSION" "User Commands"
.SH NAME
s2s \\- fast CPU translation and scoring with Marian / OPUS\\-MT, Hugging Face MarianMT and
CTranslate2 models
.SH SYNOPSIS
.B s2s translate
[\\fIOPTIONS\\fR] [\\fB\\-m\\fR \\fIMODEL\\fR] < \\fIinput\\fR > \\fIoutput\\fR
.br
.B s2s score
[\\fIOPTIONS\\fR] \\fB\\-i\\fR \\fIpairs.tsv\\fR
.br
.B s2s info
[\\fB\\-m\\fR \\fIMODEL\\fR]
.SH DESCRIPTION
s2s reads one sentence per line and writes one result per line, in input order (an empty line
gives an empty line). Models are used as they are downloaded: a Marian / OPUS\\-MT folder
(decoder.yml, model.npz, SentencePiece files), a Hugging Face MarianMT folder or a CTranslate2
folder. Without \\fB\\-m\\fR, the model shipped with s2s is used.
HEAD
for command in translate score info progress serve; do
  echo ".SH ${command^^}"
  "$S2S" "$command" --help | options_to_man
done
cat <<'TAIL'
.SH EXIT STATUS
0 on success; 1 for an error in a model, an input or the system (one line on stderr, starting
with "s2s:"); 2 for a usage error; 130 or 143 after SIGINT or SIGTERM (the lines written until
then are complete, in order).
.SH ENVIRONMENT
.TP
.B S2S_MODEL
The model folder used when \-m is not given.
.TP
.B OMP_NUM_THREADS
Compute threads when \-\-threads is 0 (the default: every core, fewer while other programs
use them).
.SH FILES
.TP
.I share/s2s/models/en\-de
The shipped default model (next to the installed binary's prefix).
.TP
.I share/s2s/configs/NAME.yml
Option files that \-\-config NAME finds: fast (greedy), quality.
TAIL
