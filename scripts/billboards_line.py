"""One summary line of a `signpost billboards --json` run, for the GPU scripts'
summary.txt (scripts/gpu_part_first.sh, scripts/gpu_big_billboards.sh).
Usage: python scripts/billboards_line.py LABEL RC WALL_S RUN.json"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    label, rc, wall, path = argv[0], argv[1], float(argv[2]), argv[3]
    try:
        with open(path) as fh:
            d = json.load(fh)
    except (OSError, ValueError) as e:  # the run's log says why
        print(f"{label}: rc={rc} wall {wall:.1f} s, no JSON ({e})")
        return 0
    print(f"{label}: wall {wall:.1f} s, time_s {d.get('time_s')}, index {d.get('index')} "
          f"{d.get('index_s')}, samples {d.get('samples')} (fixed bound "
          f"{d.get('sample_bound')}), eps@stop {d.get('epsilon_at_stop')}, load_s "
          f"{d.get('load_s')}, timings {d.get('timings')}, phase_s {d.get('phase_s')}, "
          f"sites[:5] {d.get('sites', [])[:5]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
