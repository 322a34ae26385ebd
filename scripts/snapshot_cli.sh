#!/usr/bin/env bash
# Run every CLI command on the sample map and the test fixtures, writing stdout, stderr, exit
# status and output files under OUT_DIR, so a refactor can be checked byte for byte:
#   (cd /work/main && bash /path/to/scripts/snapshot_cli.sh /tmp/snap_main)
#   bash scripts/snapshot_cli.sh /tmp/snap_branch && diff -r /tmp/snap_main /tmp/snap_branch
# Runs with cwd = the checkout to snapshot (its app/maps/gpu_core are imported); CPU backend.
set -uo pipefail
OUT=${1:?usage: snapshot_cli.sh OUT_DIR}
PY=${PYTHON:-/work/main/.venv/bin/python}
ROOT=$(pwd)
rm -rf "$OUT" && mkdir -p "$OUT/files"
SAMPLE=$ROOT/maps/samples/helsinki.osm.pbf
FX=$ROOT/tests/fixtures
F=$OUT/files
export QT_QPA_PLATFORM=offscreen SIGNPOST_CACHE_DIR=$OUT/.cache
# the checkout's packages, not an installed copy (each call runs in the output folder)
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}

n=0
run() {  # run NAME ARGS...: one signpost call, its streams and status kept under NAME
    local name=$1; shift
    n=$((n + 1))
    (cd "$F" && "$PY" -c "import sys; from app.cli import main; sys.exit(main())" "$@") \
        >"$OUT/$name.out" 2>"$OUT/$name.err"
    echo $? >"$OUT/$name.rc"
    # paths differ between checkouts: keep them out of the comparison
    sed -i "s#$ROOT#ROOT#g; s#$OUT#OUT#g" "$OUT/$name.out" "$OUT/$name.err"
}

cat >"$F/from.csv" <<EOF
id,lon,lat
a,24.940,60.170
b,24.945,60.172
EOF
cat >"$F/to.csv" <<EOF
id,lon,lat
x,24.950,60.175
y,24.938,60.168
z,24.947,60.166
EOF

for m in "$SAMPLE" "$FX/osm/small.osm" "$FX/dimacs/tiny.gr" "$FX/dimacs/tiny.gr.xz" \
         "$FX/graphml/osmnx_small.graphml" "$FX/vector/small.geojson" "$FX/osm/garbage.osm" \
         "$FX/osm/no_roads.osm" "$FX/osm/truncated.osm.pbf" "$FX/osm/two_islands.osm"; do
    b=$(basename "$m")
    run "info_$b" info -q --no-cache --json "$m"
    run "info_txt_$b" info -q --no-cache "$m"
done
run info_walk info -q --no-cache --json --profile walk "$SAMPLE"
run info_drive_contract info -q --no-cache --json --profile drive --contract "$SAMPLE"
run info_multimodal info -q --no-cache --json --profile multimodal "$SAMPLE"
run info_cached1 info -q --json "$SAMPLE"
run info_cached2 info -q --json "$SAMPLE"
run info_missing info -q --no-cache /nonexistent.osm
run info_unknown info -q --no-cache "$ROOT/README.md"

P1=24.940,60.170
P2=24.950,60.175
for s in conventional selection adaptive eval_dijkstra bellman_ford_queue delta auto; do
    run "route_$s" route -q --no-cache --backend cpu --strategy "$s" --from $P1 --to $P2 --json "$SAMPLE"
done
run route_txt route -q --no-cache --backend cpu --from $P1 --to $P2 "$SAMPLE"
run route_drive route -q --no-cache --backend cpu --profile drive --from $P1 --to $P2 --json "$SAMPLE"
run route_csv route -q --no-cache --backend cpu --from $P1 --to $P2 --out route.csv "$SAMPLE"
run route_osm route -q --no-cache --backend cpu --from node:3 --to node:5 --json "$FX/osm/small.osm"
run route_dimacs route -q --no-cache --backend cpu --from node:1 --to node:5 --json "$FX/dimacs/tiny.gr"
run route_graphml route -q --no-cache --backend cpu --from node:1 --to node:5 --json "$FX/graphml/osmnx_small.graphml"
run route_badpoint route -q --no-cache --backend cpu --from 999,999 --to $P2 "$SAMPLE"
run route_badnode route -q --no-cache --backend cpu --from node:99999 --to node:1 "$FX/dimacs/tiny.gr"

run sssp_csv sssp -q --no-cache --backend cpu --source $P1 --out sssp.csv "$SAMPLE"
run sssp_npy sssp -q --no-cache --backend cpu --source node:1 --out sssp.npy "$FX/dimacs/tiny.gr"
run sssp_delta sssp -q --no-cache --backend cpu --strategy delta --source node:1 --out sssp_delta.csv "$FX/dimacs/tiny.gr"

run iso_geojson isochrones -q --no-cache --backend cpu --profile walk --from $P1 --minutes 2,5 --out iso.geojson --json "$SAMPLE"
run iso_gpkg isochrones -q --no-cache --backend cpu --from $P1 --metres 300,600 --out iso.gpkg --json "$SAMPLE"

run bb_hops billboards -q --no-cache --backend cpu -k 3 --mode hops --json "$FX/osm/small.osm"
run bb_weighted billboards -q --no-cache --backend cpu -k 2 --mode weighted --json "$FX/dimacs/tiny.gr"

run matrix_csv matrix -q --no-cache --backend cpu --from from.csv --to to.csv --out matrix.csv "$SAMPLE"
run matrix_npy matrix -q --no-cache --backend cpu --from from.csv --to to.csv --out matrix.npy "$SAMPLE"

run mst_fw mst -q --no-cache --backend cpu --json --out mst.csv "$FX/osm/small.osm"
run mst_direct mst -q --no-cache --backend cpu --method direct --json "$FX/dimacs/tiny.gr"
run pr_fw pagerank -q --no-cache --backend cpu --out pr.csv --json "$FX/dimacs/tiny.gr"
run pr_direct pagerank -q --no-cache --backend cpu --method direct --out pr_direct.csv "$FX/osm/small.osm"

for k in kanto random rmat ring complete grid; do
    run "gen_$k" generate -q --nodes 64 --seed 3 --out "gen_$k.gr" --json "$k"
done
run gen_spn generate -q --nodes 64 --seed 3 --out gen.spn grid
run info_gen info -q --no-cache --json "$F/gen_grid.gr"

rm -rf "$OUT/.cache"
echo "$n commands -> $OUT"
