# Phase timing for tools/quickstart and .ci/run (sourced, bash):
#   timing_init FILE     record into FILE (created empty; a background job may append to it)
#   phase NAME CMD...    run CMD, record "NAME<TAB>seconds<TAB>status", return CMD's status
#   timing_row NAME SECONDS STATUS   record a row measured elsewhere (e.g. one CTest test)
#   timing_table [TITLE] print the rows recorded so far as a Markdown table, with the total wall
#                        time since timing_init
# Rows appear in the order they ended. A failed phase is recorded before the caller stops.
timing_init() {
  TIMING_FILE=$1
  TIMING_START=$(date +%s)
  : >"$TIMING_FILE"
}

timing_row() {
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$TIMING_FILE"
}

phase() {
  local name=$1 start rc=0
  shift
  start=$(date +%s%N)
  echo "== phase $name: $*" >&2
  "$@" || rc=$?
  timing_row "$name" "$((($(date +%s%N) - start) / 1000000))e-3" \
    "$([ "$rc" = 0 ] && echo ok || echo "failed ($rc)")"
  return "$rc"
}

timing_table() {
  local title=${1:-time per phase}
  {
    echo
    echo "$title (wall time $(($(date +%s) - TIMING_START)) s):"
    echo
    echo "| phase | seconds | status |"
    echo "|---|---:|---|"
    awk -F'\t' '{ printf "| %s | %.0f | %s |\n", $1, $2, $3 }' "$TIMING_FILE"
  } >&2
}
