# Sourced by the bench scripts (from the repository's root): builds
# bin/mongobench and starts a throwaway embedded server (PORT chooses its
# port), its data in $dir, which is stopped and removed when the script
# exits, after the commands the script adds to on_exit; sets dir and uri.
on_exit=()
bench_exit() {
  local c
  for c in "${on_exit[@]}"; do eval "$c" || true; done
  bin/mongobench server stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
go build -o bin/mongobench ./cmd/mongobench
dir="$(mktemp -d -t mongobench-bench-XXXXXX)"
export MONGOBENCH_SERVER_DIR="$dir"
trap bench_exit EXIT
bin/mongobench server start --small --no-sync-on-commit ${PORT:+--port "$PORT"} >/dev/null
uri="$(bin/mongobench server status --print-uri)"
