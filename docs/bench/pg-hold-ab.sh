#!/usr/bin/env bash
# Compares the server time of two versions of the PostgreSQL hold routine on one session, interleaved.
#
#   docs/bench/pg-hold-ab.sh [ROUTINES_B] [EXTRA_SQL_B]
#
# Creates two copies of the schema in the database of $PGURL (default: postgres@127.0.0.1:5432/test),
# with the table prefixes mb_ (A: the shipped routines) and mc_ (B: ROUTINES_B, a routines file with
# ${prefix} placeholders; default: the shipped one, an A/A run), runs EXTRA_SQL_B (with ${prefix}) on B
# after its schema (for example a constraint dropped), then one DO block: 2,000 slots of 10 seats in
# each copy, and 2,000 hold_batch calls of 10 new students, alternating between the copies every call,
# each call timed, a commit every 200 calls. Prints A's and B's time per hold and B/A. Both copies'
# tables are dropped first and left behind for a look afterwards (prefixes mb_ and mc_ only).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
sql="$here/booking-jdbc/src/main/resources/org/slotbook/jdbc"
url="${PGURL:-postgresql://postgres@127.0.0.1:5432/test}"
routines_b="${1:-$sql/routines-postgresql.sql}"
extra_b="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
render() { sed "s/\${prefix}/$2/g" "$1"; }
run() { psql -q -X -v ON_ERROR_STOP=1 "$url" -f "$1" 2>&1 | grep -v NOTICE || true; }
tables="slot, slot_seat, booking, occupancy, waiter, resource_lock, lesson_package, credit_entry"
drop=""
for p in mb_ mc_; do
  for t in ${tables//,/}; do drop+="${drop:+, }$p$t"; done
done
echo "DROP TABLE IF EXISTS $drop CASCADE;" > "$work/drop.sql"
run "$work/drop.sql"
render "$sql/schema-postgresql.sql" mb_ > "$work/a-schema.sql"; run "$work/a-schema.sql"
render "$sql/routines-postgresql.sql" mb_ > "$work/a-routines.sql"; run "$work/a-routines.sql"
render "$sql/schema-postgresql.sql" mc_ > "$work/b-schema.sql"; run "$work/b-schema.sql"
render "$routines_b" mc_ > "$work/b-routines.sql"; run "$work/b-routines.sql"
if [ -n "$extra_b" ]; then render "$extra_b" mc_ > "$work/b-extra.sql"; run "$work/b-extra.sql"; fi
cat > "$work/ab.sql" <<'SQL'
DO $$
DECLARE
  t VARCHAR := 'ab' || floor(random() * 1e9)::TEXT;
  t0 TIMESTAMPTZ; n INT; x RECORD; ta FLOAT := 0; tb FLOAT := 0; ha INT := 0; hb INT := 0;
  b VARCHAR[]; r VARCHAR[]; sl VARCHAR[]; st VARCHAR[]; tn VARCHAR[];
BEGIN
  FOR i IN 0..1999 LOOP
    PERFORM mb_schedule(t, 'slot' || i, 'coach' || i, 'room' || i,
      '2030-01-01'::TIMESTAMPTZ + i * INTERVAL '1 hour', '2030-01-01'::TIMESTAMPTZ + i * INTERVAL '1 hour' + INTERVAL '50 minutes',
      10, 14400000000, NULL, NULL, 0, 'FREE', 0, NULL, NULL, FALSE, NULL, 0, NULL);
    PERFORM mc_schedule(t, 'slot' || i, 'coach' || i, 'room' || i,
      '2030-01-01'::TIMESTAMPTZ + i * INTERVAL '1 hour', '2030-01-01'::TIMESTAMPTZ + i * INTERVAL '1 hour' + INTERVAL '50 minutes',
      10, 14400000000, NULL, NULL, 0, 'FREE', 0, NULL, NULL, FALSE, NULL, 0, NULL);
  END LOOP;
  COMMIT;
  FOR k IN 0..1999 LOOP
    b := '{}'; r := '{}'; sl := '{}'; st := '{}'; tn := '{}';
    FOR j IN 0..9 LOOP
      n := (k / 2) * 10 + j;
      tn := tn || t; b := b || ('b' || n); r := r || ('r' || n);
      sl := sl || ('slot' || ((n * 7) % 2000)); st := st || ('s' || lpad(n::TEXT, 6, '0'));
    END LOOP;
    t0 := clock_timestamp();
    -- each batch of students goes to both copies, A first and B first in turn; the two calls are
    -- spelled out, not built with EXECUTE, so that both are planned once and alike
    IF (k + k / 2) % 2 = 0 THEN
      FOR x IN SELECT * FROM mb_hold_batch(tn, b, r, sl, st, array_fill('HELD'::VARCHAR, ARRAY[10]),
          array_fill(NULL::BIGINT, ARRAY[10]), array_fill(600000000::BIGINT, ARRAY[10]),
          array_fill(14400000000::BIGINT, ARRAY[10]), array_fill(FALSE, ARRAY[10]), array_fill(0, ARRAY[10]),
          array_fill(0, ARRAY[10]), array_fill(0::BIGINT, ARRAY[10]), array_fill('AT_BOOKING'::VARCHAR, ARRAY[10])) LOOP
        IF x.tag IN ('HELD', 'TAKEN') THEN ha := ha + 1; END IF;
      END LOOP;
      ta := ta + extract(epoch FROM clock_timestamp() - t0);
    ELSE
      FOR x IN SELECT * FROM mc_hold_batch(tn, b, r, sl, st, array_fill('HELD'::VARCHAR, ARRAY[10]),
          array_fill(NULL::BIGINT, ARRAY[10]), array_fill(600000000::BIGINT, ARRAY[10]),
          array_fill(14400000000::BIGINT, ARRAY[10]), array_fill(FALSE, ARRAY[10]), array_fill(0, ARRAY[10]),
          array_fill(0, ARRAY[10]), array_fill(0::BIGINT, ARRAY[10]), array_fill('AT_BOOKING'::VARCHAR, ARRAY[10])) LOOP
        IF x.tag IN ('HELD', 'TAKEN') THEN hb := hb + 1; END IF;
      END LOOP;
      tb := tb + extract(epoch FROM clock_timestamp() - t0);
    END IF;
    IF k % 200 = 199 THEN COMMIT; END IF;
  END LOOP;
  RAISE NOTICE 'A: % held, % us/hold; B: % held, % us/hold; B/A %', ha, round((ta * 1e6 / greatest(ha, 1))::NUMERIC, 1),
    hb, round((tb * 1e6 / greatest(hb, 1))::NUMERIC, 1), round((tb / ta)::NUMERIC, 3);
END $$;
SQL
psql -q -X -v ON_ERROR_STOP=1 "$url" -f "$work/ab.sql" 2>&1 | sed -n 's/.*NOTICE:  //p'
