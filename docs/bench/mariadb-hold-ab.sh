#!/usr/bin/env bash
# Compares the server time of two versions of the MariaDB hold routines on one connection, interleaved.
#
#   docs/bench/mariadb-hold-ab.sh [ROUTINES_B] [BATCHES]
#
# Creates two copies of the schema in the database `test` of the server the `mariadb` client reaches
# as root on 127.0.0.1:3306 (override with MARIADB_ARGS), with the table prefixes ma_ (A: the shipped
# routines) and mc_ (B: ROUTINES_B, a routines file with ${prefix} placeholders; default: the shipped
# one, an A/A run). Then 2,000 slots of 10 seats in each copy, and BATCHES (default 2,000) hold_batch
# calls of 16 new students each on random slots (a fixed seed, 32,000 holds for 20,000 seats: the
# first holds of a slot take its seats, the later ones are refused FULL, as in Bench's spread),
# alternating between the copies every call, A first and B first in turn. Each call is timed by the
# server (SYSDATE(6) before and after). Prints A's and B's time per hold, B/A, and the seats each copy
# sold (they must be equal). Both copies' tables are dropped first and left behind for a look
# afterwards (prefixes ma_ and mc_ only).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
sql="$here/booking-jdbc/src/main/resources/org/slotbook/jdbc"
args="${MARIADB_ARGS:--h127.0.0.1 -P3306 -uroot test}"
routines_b="${1:-$sql/routines-mariadb.sql}"
batches="${2:-2000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
render() { sed "s/\${prefix}/$2/g" "$1"; }
# shellcheck disable=SC2086
run() { mariadb $args < "$1"; }
drop="SET FOREIGN_KEY_CHECKS = 0;"
for p in ma_ mc_; do
  for t in slot slot_seat booking occupancy resource_lock waiter lesson_package credit_entry; do
    drop+=" DROP TABLE IF EXISTS $p$t;"
  done
done
echo "$drop" > "$work/drop.sql"
run "$work/drop.sql"
render "$sql/schema-mariadb.sql" ma_ > "$work/a-schema.sql"; run "$work/a-schema.sql"
render "$sql/routines-mariadb.sql" ma_ > "$work/a-routines.sql"; run "$work/a-routines.sql"
render "$sql/schema-mariadb.sql" mc_ > "$work/b-schema.sql"; run "$work/b-schema.sql"
render "$routines_b" mc_ > "$work/b-routines.sql"; run "$work/b-routines.sql"
python3 - "$batches" > "$work/ab.sql" <<'PY'
import random, sys
batches = int(sys.argv[1])
rnd = random.Random(20261206)
tenant = "ab%d" % rnd.randrange(10**9)
out = sys.stdout
for p in ("ma_", "mc_"):
    for i in range(2000):
        h = i % 24
        d = 1 + i // 24
        out.write("CALL %sschedule('%s','slot%d','coach%d','room%d','2030-02-%02d %02d:00:00','2030-02-%02d %02d:50:00',"
                  "10,14400000000,NULL,NULL,0,'FREE',0,NULL,NULL,FALSE,NULL,0,NULL);\n"
                  % (p, tenant, i, i, i, 1 + d % 28, h, 1 + d % 28, h))
out.write("SET @a = 0, @b = 0;\n")
n = 0
for k in range(batches):
    recs = []
    for j in range(16):
        slot = rnd.randrange(2000)
        fields = ["b%d" % n, "r%d" % n, "slot%d" % slot, "s%07d" % n, "HELD", "", "600000000",
                  "14400000000", "0", "0", "0", "0", "0", "AT_BOOKING", tenant]
        recs.append("\x1f".join(fields))
        n += 1
    arg = "\x1e".join(recs)
    calls = [("ma_", "@a"), ("mc_", "@b")]
    if k % 2:
        calls.reverse()
    for p, v in calls:
        out.write("SET @t = SYSDATE(6);\nCALL %shold_batch('%s');\nSET %s = %s + TIMESTAMPDIFF(MICROSECOND, @t, SYSDATE(6));\n"
                  % (p, arg, v, v))
out.write("SELECT ROUND(@a / %d, 1) AS a_us_per_hold, ROUND(@b / %d, 1) AS b_us_per_hold, ROUND(@b / @a, 3) AS b_over_a,"
          " (SELECT COUNT(*) FROM ma_booking WHERE tenant_id = '%s') AS a_sold,"
          " (SELECT COUNT(*) FROM mc_booking WHERE tenant_id = '%s') AS b_sold;\n"
          % (n, n, tenant, tenant))
PY
# shellcheck disable=SC2086
mariadb $args < "$work/ab.sql" | tail -2
