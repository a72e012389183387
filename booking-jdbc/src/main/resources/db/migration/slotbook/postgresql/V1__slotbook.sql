-- Slotbook V1 for postgresql: the tables (schema-postgresql.sql) and the decision routines (routines-postgresql.sql) as of
-- release 0.1.0, with the table prefix as the Flyway placeholder ${slotbook_prefix}. Released migrations
-- never change: a schema change ships as the next version (V2__...).

-- Slotbook ledger schema for PostgreSQL 15+: the tables. The decision functions are in
-- routines-postgresql.sql, run after this file.
-- ${slotbook_prefix} is the table prefix (default slotbook_); this migration names it slotbook_prefix.
-- Every statement is idempotent. Times are UTC instants (timestamptz, microseconds).

CREATE TABLE IF NOT EXISTS ${slotbook_prefix}slot (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id     VARCHAR(64) COLLATE "C" NOT NULL,
    coach_id    VARCHAR(64) COLLATE "C" NOT NULL,
    room_id     VARCHAR(64) COLLATE "C" NOT NULL,
    starts_at   TIMESTAMPTZ NOT NULL,
    ends_at     TIMESTAMPTZ NOT NULL,
    capacity    INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    CONSTRAINT ${slotbook_prefix}slot_pk PRIMARY KEY (tenant_id, slot_id),
    CONSTRAINT ${slotbook_prefix}slot_time_ck CHECK (starts_at < ends_at),
    CONSTRAINT ${slotbook_prefix}slot_capacity_ck CHECK (capacity > 0),
    CONSTRAINT ${slotbook_prefix}slot_status_ck CHECK (status IN ('OPEN', 'CANCELLED'))
);

-- One row per seat. A seat is FREE, HELD (until held_until), CONFIRMED, or CLOSED (slot cancelled).
-- The owner (booking, student) lives on the row, so taking a free or expired seat is one statement.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}slot_seat (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id     VARCHAR(64) COLLATE "C" NOT NULL,
    seq         INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    booking_id  VARCHAR(64) COLLATE "C",
    student_id  VARCHAR(64) COLLATE "C",
    held_until  TIMESTAMPTZ,
    CONSTRAINT ${slotbook_prefix}slot_seat_pk PRIMARY KEY (tenant_id, slot_id, seq),
    CONSTRAINT ${slotbook_prefix}slot_seat_status_ck CHECK (status IN ('FREE', 'HELD', 'CONFIRMED', 'CLOSED')),
    CONSTRAINT ${slotbook_prefix}slot_seat_owner_ck CHECK (
        (status IN ('FREE', 'CLOSED') AND booking_id IS NULL AND student_id IS NULL)
        OR (status IN ('HELD', 'CONFIRMED') AND booking_id IS NOT NULL AND student_id IS NOT NULL
            AND held_until IS NOT NULL))
);
-- One seat per student and slot. Partial, so that no claim (which looks for seats without a
-- student) can be planned over it, even before the table has statistics.
CREATE UNIQUE INDEX IF NOT EXISTS ${slotbook_prefix}slot_seat_student_uk
    ON ${slotbook_prefix}slot_seat (tenant_id, slot_id, student_id) WHERE student_id IS NOT NULL;
-- Free seats only: the claim reads the first entry of this index.
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}slot_seat_free_ix
    ON ${slotbook_prefix}slot_seat (tenant_id, slot_id, seq) WHERE status = 'FREE';
-- Held seats by deadline: a claim takes over the oldest expired hold when no seat is free.
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}slot_seat_held_ix
    ON ${slotbook_prefix}slot_seat (tenant_id, slot_id, held_until) WHERE status = 'HELD';

CREATE TABLE IF NOT EXISTS ${slotbook_prefix}booking (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    booking_id  VARCHAR(64) COLLATE "C" NOT NULL,
    request_id  VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id     VARCHAR(64) COLLATE "C" NOT NULL,
    student_id  VARCHAR(64) COLLATE "C" NOT NULL,
    seat        INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    held_until  TIMESTAMPTZ NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    CONSTRAINT ${slotbook_prefix}booking_pk PRIMARY KEY (tenant_id, booking_id),
    CONSTRAINT ${slotbook_prefix}booking_status_ck CHECK (status IN ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED'))
);
-- Until statistics exist, the planner costs every index whose first column is bound alike, and a
-- lookup of one row could walk all of a tenant's bookings over the wrong one. So the indexes below
-- do not compete for the lookup by primary key: the request index starts with request_id, the
-- others are partial on statuses such a lookup does not name.
-- One booking per request id and tenant.
CREATE UNIQUE INDEX IF NOT EXISTS ${slotbook_prefix}booking_request_ux
    ON ${slotbook_prefix}booking (request_id, tenant_id);
-- Schemas created before the request index: its predecessor, a constraint on (tenant_id, request_id).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_constraint
               WHERE conname = '${slotbook_prefix}booking_request_uk' AND conrelid = to_regclass('${slotbook_prefix}booking')) THEN
        ALTER TABLE ${slotbook_prefix}booking DROP CONSTRAINT ${slotbook_prefix}booking_request_uk;
    END IF;
END
$$;
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}booking_held_ix
    ON ${slotbook_prefix}booking (tenant_id, held_until) WHERE status = 'HELD';
-- The live bookings of a slot and student (replaces booking_slot_ix, which covered every status).
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}booking_live_ix
    ON ${slotbook_prefix}booking (tenant_id, slot_id, student_id) WHERE status IN ('HELD', 'CONFIRMED');
DROP INDEX IF EXISTS ${slotbook_prefix}booking_slot_ix;

-- Who is busy when: coach and room of a slot (booking_id NULL) and the student of a booking.
-- Released rows (active = FALSE) stay as history.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}occupancy (
    id            BIGINT GENERATED BY DEFAULT AS IDENTITY,
    tenant_id     VARCHAR(64) COLLATE "C" NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) COLLATE "C" NOT NULL,
    starts_at     TIMESTAMPTZ NOT NULL,
    ends_at       TIMESTAMPTZ NOT NULL,
    slot_id       VARCHAR(64) COLLATE "C" NOT NULL,
    booking_id    VARCHAR(64) COLLATE "C",
    active        BOOLEAN     NOT NULL,
    CONSTRAINT ${slotbook_prefix}occupancy_pk PRIMARY KEY (id),
    CONSTRAINT ${slotbook_prefix}occupancy_time_ck CHECK (starts_at < ends_at)
);
-- Serves starts_at < :end AND ends_at > :start AND starts_at > :start - :longestSession.
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_overlap_ix
    ON ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at) WHERE active;
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_booking_ix
    ON ${slotbook_prefix}occupancy (tenant_id, booking_id) WHERE active;
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_slot_ix
    ON ${slotbook_prefix}occupancy (tenant_id, slot_id) WHERE active;
-- Releasing a booking's or a slot's occupations in one database call (the ${slotbook_prefix}... functions
-- of routines-postgresql.sql). These statements say "active IS NOT FALSE", which no partial index above (nor the
-- optional exclusion constraint's) is planned for, and these two are not led by tenant_id, so that
-- before statistics exist no index matching only tenant_id can look as cheap as the right one.
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_release_booking_ix
    ON ${slotbook_prefix}occupancy (booking_id, tenant_id);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_release_slot_ix
    ON ${slotbook_prefix}occupancy (slot_id, tenant_id);

-- One row per coach, room or student, locked (SELECT ... FOR UPDATE) before its occupancy is checked.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}resource_lock (
    tenant_id     VARCHAR(64) COLLATE "C" NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) COLLATE "C" NOT NULL,
    CONSTRAINT ${slotbook_prefix}resource_lock_pk PRIMARY KEY (tenant_id, resource_kind, resource_id)
);

-- Slotbook decision functions for PostgreSQL 15+, run after schema-postgresql.sql.
-- ${slotbook_prefix} is the table prefix (default slotbook_); this migration names it slotbook_prefix.
-- Every statement is idempotent (CREATE OR REPLACE FUNCTION); bodies are dollar-quoted.

-- ------------------------------------------------------------------------------------------------
-- One call per engine decision. Each function below is one decision of BookingEngine, run as one
-- READ COMMITTED transaction (the caller is in autocommit). Every statement in a PL/pgSQL function
-- takes a fresh snapshot, so a row lock taken by one statement is followed by a check, in the next
-- statement, that sees whatever committed before the lock was granted: lock and check are never
-- fused into one statement. Lock order everywhere: resource_lock rows (by kind, then id), slot row,
-- seat rows, booking rows.
--
-- Every function returns "fact rows", these 17 columns in this order, unused ones NULL:
--   tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,
--   updated_at, res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
-- The answer row comes first, then the events (EV_*) in the order they happened.
-- p_now NULL: the database clock (clock_timestamp()), read once per call. Durations are BIGINT
-- microseconds.
--
-- Flyway runs this file as it is (it understands $$ bodies). CREATE OR REPLACE FUNCTION cannot
-- change the result columns of an existing function: a release that changes them drops it first.
-- ------------------------------------------------------------------------------------------------

-- Schedules a slot: locks coach and room, answers EXISTS (the stored slot, nothing written) or
-- CONFLICT rows (nothing written), else writes the slot, its seats and the coach and room
-- occupations and answers SCHEDULED.
CREATE OR REPLACE FUNCTION ${slotbook_prefix}schedule(
    p_tenant VARCHAR, p_slot VARCHAR, p_coach VARCHAR, p_room VARCHAR,
    p_start TIMESTAMPTZ, p_end TIMESTAMPTZ, p_capacity INTEGER, p_longest_micros BIGINT)
RETURNS TABLE (tag VARCHAR, booking_id VARCHAR, request_id VARCHAR, slot_id VARCHAR, student_id VARCHAR,
               seat INTEGER, status VARCHAR, held_until TIMESTAMPTZ, created_at TIMESTAMPTZ,
               updated_at TIMESTAMPTZ, res_kind VARCHAR, res_id VARCHAR, starts_at TIMESTAMPTZ,
               ends_at TIMESTAMPTZ, coach_id VARCHAR, room_id VARCHAR, capacity INTEGER)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_lowest   TIMESTAMPTZ := p_start - p_longest_micros * INTERVAL '1 microsecond';
    v_kinds    VARCHAR[] := ARRAY['COACH', 'ROOM'];
    v_ids      VARCHAR[] := ARRAY[p_coach, p_room];
    v_clashes  BOOLEAN := FALSE;
    v_inserted INTEGER;
BEGIN
    -- 1. lock coach, then room (COACH sorts before ROOM), creating each lock row on first use
    FOR i IN 1 .. 2 LOOP
        PERFORM 1 FROM ${slotbook_prefix}resource_lock l
            WHERE l.tenant_id = p_tenant AND l.resource_kind = v_kinds[i] AND l.resource_id = v_ids[i]
            FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO ${slotbook_prefix}resource_lock (tenant_id, resource_kind, resource_id)
                VALUES (p_tenant, v_kinds[i], v_ids[i]) ON CONFLICT DO NOTHING;
            PERFORM 1 FROM ${slotbook_prefix}resource_lock l
                WHERE l.tenant_id = p_tenant AND l.resource_kind = v_kinds[i] AND l.resource_id = v_ids[i]
                FOR UPDATE;
        END IF;
    END LOOP;

    -- 2. scheduled before: the stored slot, the caller compares it with its spec
    RETURN QUERY SELECT 'EXISTS'::VARCHAR, NULL::VARCHAR, NULL::VARCHAR, s.slot_id, NULL::VARCHAR,
            NULL::INTEGER, s.status, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR,
            NULL::VARCHAR, s.starts_at, s.ends_at, s.coach_id, s.room_id, s.capacity
        FROM ${slotbook_prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
    IF FOUND THEN
        RETURN;
    END IF;

    -- 3. active occupations of the coach, then of the room, overlapping [p_start, p_end): one statement
    -- each, ordered by start, which only the overlap index serves (COACH sorts before ROOM)
    FOR i IN 1 .. 2 LOOP
        RETURN QUERY SELECT 'CONFLICT'::VARCHAR, o.booking_id, NULL::VARCHAR, o.slot_id, NULL::VARCHAR,
                NULL::INTEGER, NULL::VARCHAR, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ,
                o.resource_kind, o.resource_id, o.starts_at, o.ends_at, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
            FROM ${slotbook_prefix}occupancy o
            WHERE o.tenant_id = p_tenant AND o.resource_kind = v_kinds[i] AND o.resource_id = v_ids[i]
              AND o.active AND o.starts_at < p_end AND o.ends_at > p_start AND o.starts_at > v_lowest
            ORDER BY o.resource_kind, o.resource_id, o.starts_at;
        v_clashes := v_clashes OR FOUND;
    END LOOP;
    IF v_clashes THEN
        RETURN;
    END IF;

    -- 4. the slot (a concurrent schedule of the same id that committed first: answer it), its seats,
    -- the coach's and the room's occupations
    INSERT INTO ${slotbook_prefix}slot (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity, status)
        VALUES (p_tenant, p_slot, p_coach, p_room, p_start, p_end, p_capacity, 'OPEN')
        ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_inserted = ROW_COUNT;
    IF v_inserted = 1 THEN
        INSERT INTO ${slotbook_prefix}slot_seat (tenant_id, slot_id, seq, status)
            SELECT p_tenant, p_slot, g, 'FREE' FROM generate_series(1, p_capacity) AS g;
        INSERT INTO ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                        booking_id, active)
            VALUES (p_tenant, 'COACH', p_coach, p_start, p_end, p_slot, NULL, TRUE),
                   (p_tenant, 'ROOM', p_room, p_start, p_end, p_slot, NULL, TRUE);
    END IF;
    RETURN QUERY SELECT (CASE WHEN v_inserted = 1 THEN 'SCHEDULED' ELSE 'EXISTS' END)::VARCHAR, NULL::VARCHAR,
            NULL::VARCHAR, s.slot_id, NULL::VARCHAR, NULL::INTEGER, s.status, NULL::TIMESTAMPTZ,
            NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, s.starts_at, s.ends_at,
            s.coach_id, s.room_id, s.capacity
        FROM ${slotbook_prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
END;
$$;

-- Holds (p_status 'HELD') or books (p_status 'CONFIRMED') a seat for a student. Answers HELD (plus
-- EV_HELD or EV_CONFIRMED, and EV_EXPIRED for every dead hold it retired or took over), REPLAY,
-- ALREADY, CONFLICT rows, FULL, NOT_OPEN or NOT_FOUND. A request id used by another student, or a
-- seat the student got concurrently, fails with the unique violation (SQLSTATE 23505).
CREATE OR REPLACE FUNCTION ${slotbook_prefix}hold(
    p_tenant VARCHAR, p_booking VARCHAR, p_request VARCHAR, p_slot VARCHAR, p_student VARCHAR,
    p_status VARCHAR, p_now TIMESTAMPTZ, p_hold_micros BIGINT, p_longest_micros BIGINT, p_gate_held BOOLEAN)
RETURNS TABLE (tag VARCHAR, booking_id VARCHAR, request_id VARCHAR, slot_id VARCHAR, student_id VARCHAR,
               seat INTEGER, status VARCHAR, held_until TIMESTAMPTZ, created_at TIMESTAMPTZ,
               updated_at TIMESTAMPTZ, res_kind VARCHAR, res_id VARCHAR, starts_at TIMESTAMPTZ,
               ends_at TIMESTAMPTZ, coach_id VARCHAR, room_id VARCHAR, capacity INTEGER)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_now         TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_held_until  TIMESTAMPTZ;
    v_start       TIMESTAMPTZ;
    v_end         TIMESTAMPTZ;
    v_slot_status VARCHAR;
    v_lowest      TIMESTAMPTZ;
    v_seq         INTEGER;
    v_displaced   VARCHAR;
    v_expired     VARCHAR[] := ARRAY[]::VARCHAR[];
    v_seat_status  VARCHAR;
    v_seat_booking VARCHAR;
    v_seat_until   TIMESTAMPTZ;
    v_id          VARCHAR;
    r             RECORD;
BEGIN
    IF p_status IS NULL OR p_status NOT IN ('HELD', 'CONFIRMED') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_status must be HELD or CONFIRMED, got %s', p_status);
    END IF;
    v_held_until := v_now + p_hold_micros * INTERVAL '1 microsecond';

    -- 1. the slot
    SELECT s.starts_at, s.ends_at, s.status INTO v_start, v_end, v_slot_status
        FROM ${slotbook_prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
    IF NOT FOUND THEN
        tag := 'NOT_FOUND';
        RETURN NEXT;
        RETURN;
    END IF;
    v_lowest := v_start - p_longest_micros * INTERVAL '1 microsecond';

    -- 2. cancelled or over: only a replay of this request has an answer
    IF v_slot_status <> 'OPEN' OR v_now >= v_end THEN
        RETURN QUERY SELECT 'REPLAY'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
            FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.request_id = p_request;
        IF NOT FOUND THEN
            tag := 'NOT_OPEN';
            slot_id := p_slot;
            status := v_slot_status;
            RETURN NEXT;
        END IF;
        RETURN;
    END IF;

    -- 3. full by committed seats (no lock taken): a replay, the student's live booking, or FULL
    IF NOT COALESCE(p_gate_held, FALSE)
            AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}slot_seat f
                            WHERE f.tenant_id = p_tenant AND f.slot_id = p_slot AND f.status = 'FREE')
            AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}slot_seat h
                            WHERE h.tenant_id = p_tenant AND h.slot_id = p_slot AND h.status = 'HELD'
                              AND h.held_until <= v_now) THEN
        RETURN QUERY SELECT 'REPLAY'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
            FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.request_id = p_request;
        IF FOUND THEN
            RETURN;
        END IF;
        RETURN QUERY SELECT 'ALREADY'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
            FROM ${slotbook_prefix}booking b
            WHERE b.tenant_id = p_tenant AND b.slot_id = p_slot AND b.student_id = p_student
              AND (b.status = 'CONFIRMED' OR (b.status = 'HELD' AND v_now < b.held_until))
            LIMIT 1;
        IF FOUND THEN
            RETURN;
        END IF;
        tag := 'FULL';
        RETURN NEXT;
        RETURN;
    END IF;

    -- 4. everything about this student is decided under his lock (created on first use)
    PERFORM 1 FROM ${slotbook_prefix}resource_lock l
        WHERE l.tenant_id = p_tenant AND l.resource_kind = 'STUDENT' AND l.resource_id = p_student
        FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO ${slotbook_prefix}resource_lock (tenant_id, resource_kind, resource_id)
            VALUES (p_tenant, 'STUDENT', p_student) ON CONFLICT DO NOTHING;
        PERFORM 1 FROM ${slotbook_prefix}resource_lock l
            WHERE l.tenant_id = p_tenant AND l.resource_kind = 'STUDENT' AND l.resource_id = p_student
            FOR UPDATE;
    END IF;

    -- 5. a replay of this request (any status, any slot: the caller refuses a mismatch)
    RETURN QUERY SELECT 'REPLAY'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
            b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
            NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
        FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.request_id = p_request;
    IF FOUND THEN
        RETURN;
    END IF;

    -- 6. the student's live booking of this slot (a dead one is retired in step 8)
    RETURN QUERY SELECT 'ALREADY'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
            b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
            NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
        FROM ${slotbook_prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.slot_id = p_slot AND b.student_id = p_student
          AND (b.status = 'CONFIRMED' OR (b.status = 'HELD' AND v_now < b.held_until))
        LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;

    -- 7. the student's active occupations overlapping the slot; a dead hold blocks nothing. (The
    -- booking of each is read by primary key: OFFSET 0 keeps the lookup a separate, keyed scan.)
    RETURN QUERY SELECT 'CONFLICT'::VARCHAR, o.booking_id, NULL::VARCHAR, o.slot_id, NULL::VARCHAR,
            NULL::INTEGER, NULL::VARCHAR, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ,
            o.resource_kind, o.resource_id, o.starts_at, o.ends_at, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
        FROM ${slotbook_prefix}occupancy o
        LEFT JOIN LATERAL (SELECT d.status, d.held_until FROM ${slotbook_prefix}booking d
                           WHERE d.tenant_id = p_tenant AND d.booking_id = o.booking_id OFFSET 0) d ON TRUE
        WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
          AND o.active AND o.starts_at < v_end AND o.ends_at > v_start AND o.starts_at > v_lowest
          AND NOT COALESCE(d.status = 'HELD' AND d.held_until <= v_now, FALSE)
        ORDER BY o.resource_kind, o.resource_id, o.starts_at;
    IF FOUND THEN
        RETURN;
    END IF;

    -- 8. retire the student's dead holds: the one of this slot, then those overlapping it. Each
    -- seat row is locked, then checked: a sweeper or a takeover may have been first.
    FOR r IN SELECT m.booking_id AS id, m.slot_id AS slot, m.seat AS seq
               FROM (SELECT l.booking_id, l.slot_id, l.seat, l.status, l.held_until FROM ${slotbook_prefix}booking l
                     WHERE l.tenant_id = p_tenant AND l.slot_id = p_slot AND l.student_id = p_student
                       AND l.status IN ('HELD', 'CONFIRMED') OFFSET 0) m
               WHERE m.status = 'HELD' AND m.held_until <= v_now
             UNION ALL
             SELECT d.booking_id, d.slot_id, d.seat
               FROM (SELECT o.booking_id FROM ${slotbook_prefix}occupancy o
                     WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
                       AND o.active AND o.starts_at < v_end AND o.ends_at > v_start AND o.starts_at > v_lowest
                     ORDER BY o.resource_kind, o.resource_id, o.starts_at) o
               CROSS JOIN LATERAL (SELECT k.booking_id, k.slot_id, k.seat, k.status, k.held_until
                                   FROM ${slotbook_prefix}booking k
                                   WHERE k.tenant_id = p_tenant AND k.booking_id = o.booking_id OFFSET 0) d
               WHERE d.status = 'HELD' AND d.held_until <= v_now
    LOOP
        SELECT s.status, s.booking_id, s.held_until INTO v_seat_status, v_seat_booking, v_seat_until
            FROM ${slotbook_prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = r.slot AND s.seq = r.seq FOR UPDATE;
        IF v_seat_status = 'HELD' AND v_seat_booking = r.id AND v_seat_until <= v_now THEN
            UPDATE ${slotbook_prefix}slot_seat s
                SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
                WHERE s.tenant_id = p_tenant AND s.slot_id = r.slot AND s.seq = r.seq;
            UPDATE ${slotbook_prefix}booking b SET status = 'EXPIRED', updated_at = v_now
                WHERE b.tenant_id = p_tenant AND b.booking_id = r.id;
            UPDATE ${slotbook_prefix}occupancy o SET active = FALSE
                WHERE o.tenant_id = p_tenant AND o.booking_id = r.id AND o.active IS NOT FALSE;
            v_expired := v_expired || r.id;
        END IF;
    END LOOP;

    -- 9. claim: the first free seat, else the oldest dead hold's seat, skipping seats other claims
    -- have locked; then both again waiting for them (such a claim may yet roll back)
    SELECT s.seq INTO v_seq FROM ${slotbook_prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'FREE'
        ORDER BY s.seq LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF v_seq IS NULL THEN
        SELECT s.seq, s.booking_id INTO v_seq, v_displaced FROM ${slotbook_prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'HELD' AND s.held_until <= v_now
            ORDER BY s.held_until LIMIT 1 FOR UPDATE SKIP LOCKED;
    END IF;
    IF v_seq IS NULL THEN
        SELECT s.seq INTO v_seq FROM ${slotbook_prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'FREE'
            ORDER BY s.seq LIMIT 1 FOR UPDATE;
    END IF;
    IF v_seq IS NULL THEN
        SELECT s.seq, s.booking_id INTO v_seq, v_displaced FROM ${slotbook_prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'HELD' AND s.held_until <= v_now
            ORDER BY s.held_until LIMIT 1 FOR UPDATE;
    END IF;
    IF v_seq IS NULL THEN
        -- no seat; dead holds retired above stay retired
        tag := 'FULL';
        RETURN NEXT;
    ELSE
        -- the seat row is locked by the statement that found it, and was checked by it
        UPDATE ${slotbook_prefix}slot_seat s
            SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.seq = v_seq;
        IF v_displaced IS NOT NULL THEN
            UPDATE ${slotbook_prefix}booking b SET status = 'EXPIRED', updated_at = v_now
                WHERE b.tenant_id = p_tenant AND b.booking_id = v_displaced;
            UPDATE ${slotbook_prefix}occupancy o SET active = FALSE
                WHERE o.tenant_id = p_tenant AND o.booking_id = v_displaced AND o.active IS NOT FALSE;
            v_expired := v_expired || v_displaced;
        END IF;

        -- 10. the booking and the student's occupation
        INSERT INTO ${slotbook_prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status,
                                      held_until, created_at, updated_at)
            VALUES (p_tenant, p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until, v_now, v_now);
        INSERT INTO ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                        booking_id, active)
            VALUES (p_tenant, 'STUDENT', p_student, v_start, v_end, p_slot, p_booking, TRUE);
        RETURN QUERY SELECT 'HELD'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
            FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    END IF;
    FOREACH v_id IN ARRAY v_expired LOOP
        RETURN QUERY SELECT 'EV_EXPIRED'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
            FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.booking_id = v_id;
    END LOOP;
    IF v_seq IS NOT NULL THEN
        RETURN QUERY SELECT ('EV_' || p_status)::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id,
                b.seat, b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
            FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    END IF;
END;
$$;

-- Confirms the student's hold: CONFIRMED (plus EV_CONFIRMED when this call confirmed it),
-- HOLD_EXPIRED (plus EV_EXPIRED when this call expired it), ALREADY_CANCELLED or NOT_FOUND.
CREATE OR REPLACE FUNCTION ${slotbook_prefix}confirm(
    p_tenant VARCHAR, p_booking VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ)
RETURNS TABLE (tag VARCHAR, booking_id VARCHAR, request_id VARCHAR, slot_id VARCHAR, student_id VARCHAR,
               seat INTEGER, status VARCHAR, held_until TIMESTAMPTZ, created_at TIMESTAMPTZ,
               updated_at TIMESTAMPTZ, res_kind VARCHAR, res_id VARCHAR, starts_at TIMESTAMPTZ,
               ends_at TIMESTAMPTZ, coach_id VARCHAR, room_id VARCHAR, capacity INTEGER)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_now    TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_slot   VARCHAR;
    v_seq    INTEGER;
    v_status VARCHAR;
    v_until  TIMESTAMPTZ;
    v_tag    VARCHAR;
    v_event  VARCHAR;
    v_seat_status  VARCHAR;
    v_seat_booking VARCHAR;
BEGIN
    SELECT b.slot_id, b.seat INTO v_slot, v_seq FROM ${slotbook_prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking AND b.student_id = p_student;
    IF NOT FOUND THEN
        tag := 'NOT_FOUND';
        RETURN NEXT;
        RETURN;
    END IF;
    -- the seat row first: every change of a booking goes through it
    SELECT s.status, s.booking_id INTO v_seat_status, v_seat_booking FROM ${slotbook_prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq FOR UPDATE;
    SELECT b.status, b.held_until INTO v_status, v_until FROM ${slotbook_prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF v_status = 'CANCELLED' THEN
        tag := 'ALREADY_CANCELLED';
        RETURN NEXT;
        RETURN;
    ELSIF v_status = 'CONFIRMED' THEN
        v_tag := 'CONFIRMED';
    ELSIF v_status = 'EXPIRED' THEN
        v_tag := 'HOLD_EXPIRED';
    ELSIF v_now < v_until THEN
        IF v_seat_status IS DISTINCT FROM 'HELD' OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is HELD, its seat is not', p_booking;
        END IF;
        UPDATE ${slotbook_prefix}slot_seat s SET status = 'CONFIRMED'
            WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq;
        UPDATE ${slotbook_prefix}booking b SET status = 'CONFIRMED', updated_at = v_now
            WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
        v_tag := 'CONFIRMED';
        v_event := 'EV_CONFIRMED';
    ELSE
        IF v_seat_status IS DISTINCT FROM 'HELD' OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is HELD, its seat is not', p_booking;
        END IF;
        UPDATE ${slotbook_prefix}slot_seat s
            SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
            WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq;
        UPDATE ${slotbook_prefix}booking b SET status = 'EXPIRED', updated_at = v_now
            WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
        UPDATE ${slotbook_prefix}occupancy o SET active = FALSE
            WHERE o.tenant_id = p_tenant AND o.booking_id = p_booking AND o.active IS NOT FALSE;
        v_tag := 'HOLD_EXPIRED';
        v_event := 'EV_EXPIRED';
    END IF;
    RETURN QUERY SELECT t.tag, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status,
            b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR, NULL::TIMESTAMPTZ,
            NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
        FROM ${slotbook_prefix}booking b
        CROSS JOIN (VALUES (1, v_tag), (2, v_event)) AS t (n, tag)
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking AND t.tag IS NOT NULL
        ORDER BY t.n;
END;
$$;

-- Cancels the student's booking: CANCELLED plus EV_CANCELLED; ALREADY_CANCELLED with the booking
-- (plus EV_EXPIRED when this call retired a hold that had run out); NOT_FOUND.
CREATE OR REPLACE FUNCTION ${slotbook_prefix}cancel(
    p_tenant VARCHAR, p_booking VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ)
RETURNS TABLE (tag VARCHAR, booking_id VARCHAR, request_id VARCHAR, slot_id VARCHAR, student_id VARCHAR,
               seat INTEGER, status VARCHAR, held_until TIMESTAMPTZ, created_at TIMESTAMPTZ,
               updated_at TIMESTAMPTZ, res_kind VARCHAR, res_id VARCHAR, starts_at TIMESTAMPTZ,
               ends_at TIMESTAMPTZ, coach_id VARCHAR, room_id VARCHAR, capacity INTEGER)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_now    TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_slot   VARCHAR;
    v_seq    INTEGER;
    v_status VARCHAR;
    v_until  TIMESTAMPTZ;
    v_tag    VARCHAR;
    v_event  VARCHAR;
    v_seat_status  VARCHAR;
    v_seat_booking VARCHAR;
BEGIN
    SELECT b.slot_id, b.seat INTO v_slot, v_seq FROM ${slotbook_prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking AND b.student_id = p_student;
    IF NOT FOUND THEN
        tag := 'NOT_FOUND';
        RETURN NEXT;
        RETURN;
    END IF;
    -- the seat row first: every change of a booking goes through it
    SELECT s.status, s.booking_id INTO v_seat_status, v_seat_booking FROM ${slotbook_prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq FOR UPDATE;
    SELECT b.status, b.held_until INTO v_status, v_until FROM ${slotbook_prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF v_status IN ('CANCELLED', 'EXPIRED') THEN
        v_tag := 'ALREADY_CANCELLED';
    ELSIF v_status = 'HELD' AND v_now >= v_until THEN
        -- the hold ran out: nothing to cancel, but retire it now
        IF v_seat_status IS DISTINCT FROM 'HELD' OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is HELD, its seat is not', p_booking;
        END IF;
        UPDATE ${slotbook_prefix}slot_seat s
            SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
            WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq;
        UPDATE ${slotbook_prefix}booking b SET status = 'EXPIRED', updated_at = v_now
            WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
        UPDATE ${slotbook_prefix}occupancy o SET active = FALSE
            WHERE o.tenant_id = p_tenant AND o.booking_id = p_booking AND o.active IS NOT FALSE;
        v_tag := 'ALREADY_CANCELLED';
        v_event := 'EV_EXPIRED';
    ELSE
        IF v_seat_status IS DISTINCT FROM v_status OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is %, its seat is not', p_booking, v_status;
        END IF;
        UPDATE ${slotbook_prefix}slot_seat s
            SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
            WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq;
        UPDATE ${slotbook_prefix}booking b SET status = 'CANCELLED', updated_at = v_now
            WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
        UPDATE ${slotbook_prefix}occupancy o SET active = FALSE
            WHERE o.tenant_id = p_tenant AND o.booking_id = p_booking AND o.active IS NOT FALSE;
        v_tag := 'CANCELLED';
        v_event := 'EV_CANCELLED';
    END IF;
    RETURN QUERY SELECT t.tag, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status,
            b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR, NULL::TIMESTAMPTZ,
            NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
        FROM ${slotbook_prefix}booking b
        CROSS JOIN (VALUES (1, v_tag), (2, v_event)) AS t (n, tag)
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking AND t.tag IS NOT NULL
        ORDER BY t.n;
END;
$$;

-- Calls a slot off: SLOT_CANCELLED (the slot) plus one EV_CANCELLED per booking it cancelled, by
-- seat; ALREADY_CANCELLED; NOT_FOUND.
CREATE OR REPLACE FUNCTION ${slotbook_prefix}cancel_slot(p_tenant VARCHAR, p_slot VARCHAR, p_now TIMESTAMPTZ)
RETURNS TABLE (tag VARCHAR, booking_id VARCHAR, request_id VARCHAR, slot_id VARCHAR, student_id VARCHAR,
               seat INTEGER, status VARCHAR, held_until TIMESTAMPTZ, created_at TIMESTAMPTZ,
               updated_at TIMESTAMPTZ, res_kind VARCHAR, res_id VARCHAR, starts_at TIMESTAMPTZ,
               ends_at TIMESTAMPTZ, coach_id VARCHAR, room_id VARCHAR, capacity INTEGER)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_now TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
BEGIN
    UPDATE ${slotbook_prefix}slot s SET status = 'CANCELLED'
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'OPEN';
    IF NOT FOUND THEN
        PERFORM 1 FROM ${slotbook_prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
        tag := CASE WHEN FOUND THEN 'ALREADY_CANCELLED' ELSE 'NOT_FOUND' END;
        RETURN NEXT;
        RETURN;
    END IF;
    -- every seat, free ones included: a claim in flight holds its seat's lock, so this waits for it,
    -- and no claim can take a seat of this slot afterwards
    UPDATE ${slotbook_prefix}slot_seat s
        SET status = 'CLOSED', booking_id = NULL, student_id = NULL, held_until = NULL
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status <> 'CLOSED';
    RETURN QUERY SELECT 'SLOT_CANCELLED'::VARCHAR, NULL::VARCHAR, NULL::VARCHAR, s.slot_id, NULL::VARCHAR,
            NULL::INTEGER, s.status, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR,
            NULL::VARCHAR, s.starts_at, s.ends_at, s.coach_id, s.room_id, s.capacity
        FROM ${slotbook_prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
    -- every live booking, each reported as it is after this update
    RETURN QUERY WITH c AS (
            UPDATE ${slotbook_prefix}booking b SET status = 'CANCELLED', updated_at = v_now
                WHERE b.tenant_id = p_tenant AND b.slot_id = p_slot AND b.status IN ('HELD', 'CONFIRMED')
                RETURNING b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status, b.held_until,
                          b.created_at, b.updated_at)
        SELECT 'EV_CANCELLED'::VARCHAR, c.booking_id, c.request_id, c.slot_id, c.student_id, c.seat, c.status,
               c.held_until, c.created_at, c.updated_at, NULL::VARCHAR, NULL::VARCHAR, NULL::TIMESTAMPTZ,
               NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
        FROM c ORDER BY c.seat;
    UPDATE ${slotbook_prefix}occupancy o SET active = FALSE
        WHERE o.tenant_id = p_tenant AND o.slot_id = p_slot AND o.active IS NOT FALSE;
END;
$$;

-- Expires up to p_limit holds of the tenant that ran out (oldest deadline first): one EV_EXPIRED row
-- per booking this call expired. Safe on several nodes at once: the conditional seat update decides.
CREATE OR REPLACE FUNCTION ${slotbook_prefix}expire_due(p_tenant VARCHAR, p_now TIMESTAMPTZ, p_limit INTEGER)
RETURNS TABLE (tag VARCHAR, booking_id VARCHAR, request_id VARCHAR, slot_id VARCHAR, student_id VARCHAR,
               seat INTEGER, status VARCHAR, held_until TIMESTAMPTZ, created_at TIMESTAMPTZ,
               updated_at TIMESTAMPTZ, res_kind VARCHAR, res_id VARCHAR, starts_at TIMESTAMPTZ,
               ends_at TIMESTAMPTZ, coach_id VARCHAR, room_id VARCHAR, capacity INTEGER)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_now          TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_seat_status  VARCHAR;
    v_seat_booking VARCHAR;
    v_seat_until   TIMESTAMPTZ;
    r              RECORD;
BEGIN
    IF p_limit IS NULL OR p_limit <= 0 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('p_limit must be positive, got %s', p_limit);
    END IF;
    FOR r IN SELECT d.booking_id AS id, d.slot_id AS slot, d.seat AS seq FROM ${slotbook_prefix}booking d
             WHERE d.tenant_id = p_tenant AND d.status = 'HELD' AND d.held_until <= v_now
             ORDER BY d.held_until LIMIT p_limit
    LOOP
        -- lock the seat, then check it: another sweeper or a takeover may have been first
        SELECT s.status, s.booking_id, s.held_until INTO v_seat_status, v_seat_booking, v_seat_until
            FROM ${slotbook_prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = r.slot AND s.seq = r.seq FOR UPDATE;
        IF v_seat_status = 'HELD' AND v_seat_booking = r.id AND v_seat_until <= v_now THEN
            UPDATE ${slotbook_prefix}slot_seat s
                SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
                WHERE s.tenant_id = p_tenant AND s.slot_id = r.slot AND s.seq = r.seq;
            UPDATE ${slotbook_prefix}booking b SET status = 'EXPIRED', updated_at = v_now
                WHERE b.tenant_id = p_tenant AND b.booking_id = r.id;
            UPDATE ${slotbook_prefix}occupancy o SET active = FALSE
                WHERE o.tenant_id = p_tenant AND o.booking_id = r.id AND o.active IS NOT FALSE;
            RETURN QUERY SELECT 'EV_EXPIRED'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id,
                    b.seat, b.status, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                    NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER
                FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.booking_id = r.id;
        END IF;
    END LOOP;
END;
$$;
