#!/usr/bin/env bash
# npm run test:loaded [-- vitest args]: the test suite on a busy machine.
#
# Starts CPU burners (BURNERS, default 2: one per core of the 2-core CI machine) beside
# `npm test`, so a test that depends on the machine's speed fails here rather than on a shared
# runner. Extra arguments go to vitest (e.g. `npm run test:loaded -- test/analysis`). The burners
# are always killed, by their own process ids, and the exit status is that of the tests.
set -u
# Job control: each background job gets its own process group, so the whole test run (npm,
# vitest and its workers) can be signalled as one.
set -m

burners=()
tests=''
stop_burners() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${burners[@]}"; do wait "$pid" 2>/dev/null; done
  burners=()
}
# Interrupted: pass the signal on to the test run's process group, then leave (the EXIT trap
# stops the burners).
on_signal() {
  if [ -n "$tests" ]; then
    kill "-$1" -- "-$tests" 2>/dev/null
    wait "$tests" 2>/dev/null
  fi
  exit "$2"
}
trap stop_burners EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

for _ in $(seq 1 "${BURNERS:-2}"); do
  node -e 'for (;;) {}' &
  burners+=("$!")
done
echo "test:loaded: ${#burners[@]} CPU burners running (pids ${burners[*]})" >&2

# In the background and waited for, so that a signal is handled at once, not after the tests.
npm test -- "$@" &
tests=$!
wait "$tests"
status=$?
tests=''
stop_burners
exit "$status"
