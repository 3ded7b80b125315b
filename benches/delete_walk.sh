#!/usr/bin/env bash
# Times a DELETE of 400 records (and an UPDATE of them) in a database of 1
# table and in one of 100, on a `surreal` server in memory: SurrealDB 3.3.5
# walked the whole schema once per deleted record
# (vendor/surrealdb-datastore/PATCHED.md).
#
#   cargo build --release --features surreal-server --bin surreal
#   benches/delete_walk.sh target/release/surreal 8011
set -eu
BIN=$1; PORT=$2
$BIN start --no-banner --log warn --user root --pass root --bind 127.0.0.1:$PORT memory > /dev/null 2>&1 &
PID=$!
trap "kill $PID" EXIT
for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$PORT/health && break; sleep 0.2; done
sql() { curl -s -X POST -u root:root -H "surreal-ns: p" -H "surreal-db: $1" -H "Accept: application/json" --data-binary "$2" http://127.0.0.1:$PORT/sql; }
for tables in 1 100; do
  db=d$tables
  defs=""
  for n in $(seq 0 $((tables-1))); do defs+="DEFINE TABLE t$n SCHEMAFULL; DEFINE FIELD a ON t$n TYPE int; DEFINE FIELD b ON t$n TYPE string;"; done
  sql $db "$defs" > /dev/null
  for round in 1 2 3; do
    sql $db "FOR \$i IN 0..400 { CREATE type::record('t0', [$round, \$i]) SET a = 1, b = 'x' RETURN NONE; };" > /dev/null
    upd=$(sql $db "UPDATE t0:[$round,0]..[$round,100000] SET a = 2 RETURN NONE;" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["time"])')
    del=$(sql $db "DELETE t0:[$round,0]..[$round,100000] RETURN NONE;" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["time"])')
    echo "tables=$tables round=$round update400=$upd delete400=$del"
  done
done
