-- Slotbook decision functions for PostgreSQL 15+, run after schema-postgresql.sql.
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- Every statement is idempotent (CREATE OR REPLACE FUNCTION); bodies are dollar-quoted.

-- ------------------------------------------------------------------------------------------------
-- One call per engine decision. Each function below is one decision of BookingEngine, run as one
-- READ COMMITTED transaction (the caller is in autocommit). Every statement in a PL/pgSQL function
-- takes a fresh snapshot, so a row lock taken by one statement is followed by a check, in the next
-- statement, that sees whatever committed before the lock was granted: lock and check are never
-- fused into one statement. Lock order everywhere: the student's lock (an advisory lock, see
-- lock_student) or the coach's and room's resource_lock rows (by kind, then id), slot row, seat rows,
-- booking rows.
--
-- Every decision function answers "fact rows" of the type ${prefix}fact, these 20 columns in this
-- order, unused ones NULL:
--   tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,
--   updated_at, res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity, ref_id, amount, note
-- The answer row comes first, then the events (EV_*) in the order they happened.
-- p_now NULL: the database clock (clock_timestamp()), read once per call. Durations are BIGINT
-- microseconds.
--
-- Flyway runs this file as it is (it understands $$ bodies). The type is created once: a release that
-- changes its columns drops it together with the functions that answer it.
-- ------------------------------------------------------------------------------------------------

-- Versions before the fact type answered a table of their own (17 columns, later 20), some of them
-- with other parameters: drop every one, so that no call can reach one and the functions below can
-- answer the type. A later run finds none.
DO $$
DECLARE
    r RECORD;
BEGIN
    FOR r IN SELECT p.oid::regprocedure AS signature FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = current_schema() AND p.proretset AND p.prorettype = 'record'::regtype
               AND p.proname IN (SELECT '${prefix}' || unnest(ARRAY[
                   'booking_row', 'waiter_row', 'slot_row', 'event_rows', 'package_row', 'answered', 'replay',
                   'schedule', 'hold', 'confirm', 'cancel', 'cancel_slot', 'expire_due', 'leave_waitlist',
                   'grant_package', 'check_in', 'schedule_series', 'cancel_series', 'hold_all']))
    LOOP
        EXECUTE 'DROP FUNCTION ' || r.signature;
    END LOOP;
END
$$;
-- The promotion of versions before the booking rules took fewer parameters.
DROP FUNCTION IF EXISTS ${prefix}promote(VARCHAR, VARCHAR, TIMESTAMPTZ, BIGINT, BIGINT, INTEGER, INTEGER, BIGINT);

-- The fact row.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                   WHERE t.typname = '${prefix}fact' AND n.nspname = current_schema()) THEN
        CREATE TYPE ${prefix}fact AS (
            tag VARCHAR, booking_id VARCHAR, request_id VARCHAR, slot_id VARCHAR, student_id VARCHAR, seat INTEGER,
            status VARCHAR, held_until TIMESTAMPTZ, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ, res_kind VARCHAR,
            res_id VARCHAR, starts_at TIMESTAMPTZ, ends_at TIMESTAMPTZ, coach_id VARCHAR, room_id VARCHAR,
            capacity INTEGER, ref_id VARCHAR, amount INTEGER, note VARCHAR);
    END IF;
END
$$;

-- A fact row tagged tag, with the columns given (by position or by name); the others NULL.
CREATE OR REPLACE FUNCTION ${prefix}fact_of(
    tag VARCHAR, booking_id VARCHAR = NULL, request_id VARCHAR = NULL, slot_id VARCHAR = NULL,
    student_id VARCHAR = NULL, seat INTEGER = NULL, status VARCHAR = NULL, held_until TIMESTAMPTZ = NULL,
    created_at TIMESTAMPTZ = NULL, updated_at TIMESTAMPTZ = NULL, res_kind VARCHAR = NULL, res_id VARCHAR = NULL,
    starts_at TIMESTAMPTZ = NULL, ends_at TIMESTAMPTZ = NULL, coach_id VARCHAR = NULL, room_id VARCHAR = NULL,
    capacity INTEGER = NULL, ref_id VARCHAR = NULL, amount INTEGER = NULL, note VARCHAR = NULL)
RETURNS ${prefix}fact
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT ROW($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)::${prefix}fact
$$;

-- ------------------------------------------------------------------------------------------------
-- Helpers, called from the decision functions inside their one call.
-- A helper that reads a table is PL/pgSQL, never LANGUAGE sql: on Citus, where a decision runs on the
-- worker that holds its tenant, a SQL function's parameterized query of a distributed table fails.
-- ------------------------------------------------------------------------------------------------

-- Locks a student for the rest of the transaction: a transaction-scoped advisory lock on a 64-bit
-- hash of the table prefix, tenant and student (no row is written). Two students whose keys collide
-- only wait for each other. Taken where the lock order puts the student's lock row on the other
-- databases: before any slot, seat or booking row.
CREATE OR REPLACE FUNCTION ${prefix}lock_student(p_tenant VARCHAR, p_student VARCHAR)
RETURNS VOID
LANGUAGE sql
AS $$
    SELECT pg_advisory_xact_lock(hashtextextended('${prefix}' || chr(31) || p_tenant || chr(31) || p_student, 0))
$$;

-- A booking as a fact row tagged p_tag (res_kind = p_kind).
CREATE OR REPLACE FUNCTION ${prefix}booking_row(p_tenant VARCHAR, p_tag VARCHAR, p_booking VARCHAR, p_kind VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN QUERY SELECT p_tag, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status::VARCHAR,
           b.held_until, b.created_at, b.updated_at, p_kind, NULL::VARCHAR, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ,
           NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER, b.package_id, b.credits, b.attendance::VARCHAR
    FROM ${prefix}booking b WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
END;
$$;

-- A waitlist entry as a fact row tagged p_tag: seat = its position while it waits (else 0),
-- created_at = when it joined, res_kind = why it was skipped.
CREATE OR REPLACE FUNCTION ${prefix}waiter_row(p_tenant VARCHAR, p_tag VARCHAR, p_request VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN QUERY SELECT p_tag, w.booking_id, w.request_id, w.slot_id, w.student_id,
           (CASE WHEN w.status = 'WAITING' THEN
                (SELECT COUNT(*) FROM ${prefix}waiter o
                 WHERE o.tenant_id = w.tenant_id AND o.slot_id = w.slot_id AND o.status = 'WAITING'
                   AND o.seq <= w.seq)
            ELSE 0 END)::INTEGER,
           w.status, NULL::TIMESTAMPTZ, w.joined_at, w.updated_at, w.reason, NULL::VARCHAR, NULL::TIMESTAMPTZ,
           NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER, NULL::VARCHAR, NULL::INTEGER, NULL::VARCHAR
    FROM ${prefix}waiter w WHERE w.tenant_id = p_tenant AND w.request_id = p_request;
END;
$$;

-- A slot as a fact row tagged p_tag, with its rules: held_until = opens_at, created_at = closes_at,
-- seat = buffer seconds, res_kind = cancel policy, res_id = cancel cutoff seconds, student_id = 'STUDENTS'
-- when the buffer keeps the booked students too.
CREATE OR REPLACE FUNCTION ${prefix}slot_row(p_tenant VARCHAR, p_tag VARCHAR, p_slot VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN QUERY SELECT p_tag, NULL::VARCHAR, NULL::VARCHAR, s.slot_id,
           (CASE WHEN s.buffer_students THEN 'STUDENTS' END)::VARCHAR, s.buffer_seconds, s.status, s.opens_at,
           s.closes_at, NULL::TIMESTAMPTZ, s.cancel_policy, s.cancel_cutoff_seconds::VARCHAR, s.starts_at,
           s.ends_at, s.coach_id, s.room_id, s.capacity, s.class_type, s.cost, s.series_id
    FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
END;
$$;

-- The event rows of (tag, id) pairs in order: EV_SKIPPED ids are request ids of waitlist entries,
-- the others booking ids. The booking events are written to the outbox (event) in the same order, in
-- the decision's own transaction: every booking event a decision answers passes through here, or
-- through the two places that write a new unpaid hold's event themselves (hold, claim_batch).
CREATE OR REPLACE FUNCTION ${prefix}event_rows(p_tenant VARCHAR, p_tags VARCHAR[], p_ids VARCHAR[])
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO ${prefix}event (tenant_id, kind, booking_id, request_id, slot_id, student_id, seat, status,
                                held_until, created_at, updated_at, package_id, credits, attendance, written_at)
    SELECT p_tenant, substr(t.tag, 4), b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status,
           b.held_until, b.created_at, b.updated_at, b.package_id, b.credits, b.attendance, b.updated_at
    FROM unnest(p_tags, p_ids) WITH ORDINALITY AS t(tag, id, i)
    JOIN ${prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = t.id
    WHERE t.tag <> 'EV_SKIPPED'
    ORDER BY t.i;
    FOR i IN 1 .. COALESCE(array_length(p_tags, 1), 0) LOOP
        IF p_tags[i] = 'EV_SKIPPED' THEN
            RETURN QUERY SELECT * FROM ${prefix}waiter_row(p_tenant, p_tags[i], p_ids[i]);
        ELSE
            RETURN QUERY SELECT * FROM ${prefix}booking_row(p_tenant, p_tags[i], p_ids[i], NULL);
        END IF;
    END LOOP;
END;
$$;

-- The student limit a new live booking would break: 'UPCOMING' when p_max_upcoming > 0 and the
-- student has that many live bookings of sessions not over yet, 'WEEKLY' when p_max_week > 0 and
-- he has that many live bookings of sessions starting in [p_week_start, p_week_end); else NULL.
-- Counted over his active occupations, read in the order only the overlap index serves, whose
-- booking is read by key (a dead hold counts nothing).
-- Mirrors the rules kernel: Students.limitReached (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}limit_reached(
    p_tenant VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ, p_longest_micros BIGINT, p_max_upcoming INTEGER,
    p_max_week INTEGER, p_week_start TIMESTAMPTZ, p_week_end TIMESTAMPTZ)
RETURNS VARCHAR
LANGUAGE plpgsql
AS $$
DECLARE
    v_count BIGINT;
BEGIN
    IF COALESCE(p_max_upcoming, 0) > 0 THEN
        SELECT COUNT(*) INTO v_count
            FROM (SELECT o.booking_id FROM ${prefix}occupancy o
                  WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
                    AND o.active AND o.ends_at > p_now
                    AND o.starts_at > p_now - p_longest_micros * INTERVAL '1 microsecond'
                  ORDER BY o.resource_kind, o.resource_id, o.starts_at OFFSET 0) o
            CROSS JOIN LATERAL (SELECT d.status, d.held_until FROM ${prefix}booking d
                                WHERE d.tenant_id = p_tenant AND d.booking_id = o.booking_id OFFSET 0) d
            WHERE d.status = 'CONFIRMED' OR (d.status = 'HELD' AND d.held_until > p_now);
        IF v_count >= p_max_upcoming THEN
            RETURN 'UPCOMING';
        END IF;
    END IF;
    IF COALESCE(p_max_week, 0) > 0 AND p_week_start IS NOT NULL AND p_week_end IS NOT NULL THEN
        SELECT COUNT(*) INTO v_count
            FROM (SELECT o.booking_id FROM ${prefix}occupancy o
                  WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
                    AND o.active AND o.starts_at >= p_week_start AND o.starts_at < p_week_end
                  ORDER BY o.resource_kind, o.resource_id, o.starts_at OFFSET 0) o
            CROSS JOIN LATERAL (SELECT d.status, d.held_until FROM ${prefix}booking d
                                WHERE d.tenant_id = p_tenant AND d.booking_id = o.booking_id OFFSET 0) d
            WHERE d.status = 'CONFIRMED' OR (d.status = 'HELD' AND d.held_until > p_now);
        IF v_count >= p_max_week THEN
            RETURN 'WEEKLY';
        END IF;
    END IF;
    RETURN NULL;
END;
$$;

-- ------------------------------------------------------------------------------------------------
-- Credits. A slot with cost > 0 is paid by the student's package that covers it (valid_from <=
-- start < valid_until, class_types '' or naming the slot's class type) and holds the cost: the one
-- with the earliest valid_until, then the lowest package id. Every change of a package's remaining
-- writes its journal entry (credit_entry) in the same call. Lock order: student lock, slot row, seat
-- rows, package rows (in payer order), booking rows.
-- ------------------------------------------------------------------------------------------------

-- An instant from microseconds since the epoch as text ('' or NULL: NULL).
CREATE OR REPLACE FUNCTION ${prefix}micros_ts(p_micros TEXT)
RETURNS TIMESTAMPTZ
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE WHEN NULLIF(p_micros, '') IS NULL THEN NULL::TIMESTAMPTZ
                ELSE TIMESTAMPTZ 'epoch' + p_micros::BIGINT * INTERVAL '1 microsecond' END
$$;

-- The package that would pay for p_student's seat in p_slot, read without a lock; NULL when none can
-- (or the slot is free).
-- Mirrors the rules kernel: Credits.payer (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}payer(p_tenant VARCHAR, p_student VARCHAR, p_slot VARCHAR)
RETURNS VARCHAR
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN (SELECT p.package_id
    FROM ${prefix}slot s
    JOIN ${prefix}lesson_package p ON p.tenant_id = s.tenant_id AND p.student_id = p_student
    WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.cost > 0
      AND p.remaining >= s.cost AND p.valid_from <= s.starts_at AND s.starts_at < p.valid_until
      AND (p.class_types = '' OR (s.class_type IS NOT NULL
                                  AND s.class_type = ANY (string_to_array(p.class_types, ','))))
    ORDER BY p.valid_until, p.package_id
    LIMIT 1);
END;
$$;

-- Locks the package that pays for p_student's seat in p_slot and answers its id: the candidates in
-- payer order, each locked and checked again (a concurrent draw may have emptied it); NULL when none
-- can pay.
CREATE OR REPLACE FUNCTION ${prefix}lock_payer(p_tenant VARCHAR, p_student VARCHAR, p_slot VARCHAR)
RETURNS VARCHAR
LANGUAGE plpgsql
AS $$
DECLARE
    v_cost      INTEGER;
    v_remaining INTEGER;
    r           RECORD;
BEGIN
    SELECT s.cost INTO v_cost FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
    IF COALESCE(v_cost, 0) <= 0 THEN
        RETURN NULL;
    END IF;
    FOR r IN SELECT p.package_id
             FROM ${prefix}slot s
             JOIN ${prefix}lesson_package p ON p.tenant_id = s.tenant_id AND p.student_id = p_student
             WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot
               AND p.remaining >= s.cost AND p.valid_from <= s.starts_at AND s.starts_at < p.valid_until
               AND (p.class_types = '' OR (s.class_type IS NOT NULL
                                           AND s.class_type = ANY (string_to_array(p.class_types, ','))))
             ORDER BY p.valid_until, p.package_id
    LOOP
        SELECT p.remaining INTO v_remaining FROM ${prefix}lesson_package p
            WHERE p.tenant_id = p_tenant AND p.package_id = r.package_id FOR UPDATE;
        IF v_remaining >= v_cost THEN
            RETURN r.package_id;
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;

-- Draws p_cost from package p_package (locked by the caller) for booking p_booking: remaining, the
-- journal entry (p_reason DRAW or FORFEIT) and the booking's package and credits.
-- Mirrors the rules kernel: Credits.charge (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}charge(p_tenant VARCHAR, p_booking VARCHAR, p_package VARCHAR, p_cost INTEGER,
                                           p_reason VARCHAR, p_now TIMESTAMPTZ)
RETURNS VOID
LANGUAGE plpgsql
AS $$
BEGIN
    UPDATE ${prefix}lesson_package p SET remaining = p.remaining - p_cost
        WHERE p.tenant_id = p_tenant AND p.package_id = p_package;
    INSERT INTO ${prefix}credit_entry (tenant_id, package_id, reason, delta, booking_id, request_id, at)
        SELECT p_tenant, p_package, p_reason, -p_cost, b.booking_id, b.request_id, p_now
        FROM ${prefix}booking b WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    UPDATE ${prefix}booking b SET package_id = p_package, credits = p_cost, updated_at = p_now
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
END;
$$;

-- Gives back the credits booking p_booking holds, if any (REFUND): the package's remaining, the
-- journal entry, the booking holding none.
-- Mirrors the rules kernel: Credits.refund (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}refund(p_tenant VARCHAR, p_booking VARCHAR, p_now TIMESTAMPTZ)
RETURNS VOID
LANGUAGE plpgsql
AS $$
DECLARE
    v_package VARCHAR;
    v_credits INTEGER;
    v_request VARCHAR;
BEGIN
    SELECT b.package_id, b.credits, b.request_id INTO v_package, v_credits, v_request FROM ${prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF COALESCE(v_credits, 0) <= 0 OR v_package IS NULL THEN
        RETURN;
    END IF;
    UPDATE ${prefix}lesson_package p SET remaining = p.remaining + v_credits
        WHERE p.tenant_id = p_tenant AND p.package_id = v_package;
    INSERT INTO ${prefix}credit_entry (tenant_id, package_id, reason, delta, booking_id, request_id, at)
        VALUES (p_tenant, v_package, 'REFUND', v_credits, p_booking, v_request, p_now);
    UPDATE ${prefix}booking b SET package_id = NULL, credits = 0, updated_at = p_now
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
END;
$$;

-- Gives back the credits p_student's dead holds (HELD, deadline passed by p_now, not swept yet) still
-- hold, each under its seat row's lock and checked again (a sweeper, a takeover or a cancel may have
-- been first, and refunded it); the holds stay for them to expire. Asked when no package can pay: a
-- credit in a hold that ran out is the student's again. Whether there was any such hold (its credit is
-- back, by this call or the one that was first). The student's active occupations lead to his
-- bookings (his index, then each booking by its key).
-- Mirrors the rules kernel: Credits.refundDeadHolds, through Credits.payer (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}refund_dead_holds(p_tenant VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ)
RETURNS BOOLEAN
LANGUAGE plpgsql
AS $$
DECLARE
    v_any BOOLEAN := FALSE;
    r     RECORD;
BEGIN
    FOR r IN SELECT o.booking_id, o.slot_id, d.seat
             FROM ${prefix}occupancy o
             JOIN LATERAL (SELECT d.seat, d.status, d.held_until, d.credits FROM ${prefix}booking d
                           WHERE d.tenant_id = p_tenant AND d.booking_id = o.booking_id OFFSET 0) d ON TRUE
             WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active AND d.status = 'HELD' AND d.held_until <= p_now AND d.credits > 0
             ORDER BY o.booking_id
    LOOP
        PERFORM 1 FROM ${prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = r.slot_id AND s.seq = r.seat AND s.status = 'HELD'
              AND s.booking_id = r.booking_id AND s.held_until <= p_now
            FOR UPDATE;
        IF FOUND THEN
            PERFORM ${prefix}refund(p_tenant, r.booking_id, p_now);
        END IF;
        v_any := TRUE;
    END LOOP;
    RETURN v_any;
END;
$$;

-- What a late cancel by the student and a no-show cost under AT_CHECK_IN: a booking of a slot with a
-- cost that holds no credits draws them as a FORFEIT when a package can pay (else nothing).
-- Mirrors the rules kernel: Credits.forfeit (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}forfeit(p_tenant VARCHAR, p_booking VARCHAR, p_credit_policy VARCHAR,
                                            p_now TIMESTAMPTZ)
RETURNS VOID
LANGUAGE plpgsql
AS $$
DECLARE
    v_slot    VARCHAR;
    v_student VARCHAR;
    v_credits INTEGER;
    v_cost    INTEGER;
    v_payer   VARCHAR;
BEGIN
    IF p_credit_policy IS DISTINCT FROM 'AT_CHECK_IN' THEN
        RETURN;
    END IF;
    SELECT b.slot_id, b.student_id, b.credits, s.cost INTO v_slot, v_student, v_credits, v_cost
        FROM ${prefix}booking b JOIN ${prefix}slot s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF COALESCE(v_cost, 0) <= 0 OR v_credits > 0 THEN
        RETURN;
    END IF;
    v_payer := ${prefix}lock_payer(p_tenant, v_student, v_slot);
    IF v_payer IS NULL THEN
        IF ${prefix}refund_dead_holds(p_tenant, v_student, p_now) THEN
            v_payer := ${prefix}lock_payer(p_tenant, v_student, v_slot);
        END IF;
    END IF;
    IF v_payer IS NOT NULL THEN
        PERFORM ${prefix}charge(p_tenant, p_booking, v_payer, v_cost, 'FORFEIT', p_now);
    END IF;
END;
$$;

-- A package as a fact row tagged p_tag: ref_id = package id, student_id, capacity = credits, amount =
-- remaining, starts_at/ends_at = validity, res_id = class types, created_at = granted at.
CREATE OR REPLACE FUNCTION ${prefix}package_row(p_tenant VARCHAR, p_tag VARCHAR, p_package VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN QUERY SELECT p_tag, NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR, p.student_id, NULL::INTEGER, NULL::VARCHAR,
           NULL::TIMESTAMPTZ, p.granted_at, NULL::TIMESTAMPTZ, NULL::VARCHAR, p.class_types, p.valid_from,
           p.valid_until, NULL::VARCHAR, NULL::VARCHAR, p.credits, p.package_id, p.remaining, NULL::VARCHAR
    FROM ${prefix}lesson_package p WHERE p.tenant_id = p_tenant AND p.package_id = p_package;
END;
$$;

-- Ends a booking whose seat row the caller has locked and checked: the seat is FREE again, the
-- booking gets p_status, its occupation is released.
-- Mirrors the rules kernel: Seating.end (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}release(
    p_tenant VARCHAR, p_slot VARCHAR, p_seq INTEGER, p_booking VARCHAR, p_status VARCHAR, p_now TIMESTAMPTZ)
RETURNS VOID
LANGUAGE plpgsql
AS $$
BEGIN
    UPDATE ${prefix}slot_seat s
        SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.seq = p_seq;
    UPDATE ${prefix}booking b SET status = p_status, updated_at = p_now
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    UPDATE ${prefix}occupancy o SET active = FALSE
        WHERE o.tenant_id = p_tenant AND o.booking_id = p_booking AND o.active IS NOT FALSE;
END;
$$;

-- Promotion: a seat of slot p_slot was freed in this transaction, whose caller holds the slot row's
-- lock (taken before the seat's). While the slot is open and before its waitlist cutoff, the first
-- WAITING entry (join order) that can take the seat gets it as a HELD booking (its own booking id and
-- request id, held for p_hold_micros) and turns PROMOTED; those before it that cannot turn SKIPPED
-- with the reason: ALREADY_BOOKED (a HELD or CONFIRMED booking of the slot, live or not), CONFLICT (a
-- live booking overlapping the slot's student time), LIMIT (a student limit, against the slot's
-- week), NO_CREDITS (the slot has a cost and no package of the student can pay it; under
-- p_credit_policy AT_BOOKING the promoted booking draws it at once). Each waiter's student lock is taken (after the slot row's: the one exception to the lock
-- order; a deadlock is retried by the caller). Answers the events in order: ('EV_SKIPPED', request id) per
-- entry passed over, then ('EV_PROMOTED', booking id). Nobody able to take it: the seat stays FREE.
-- Mirrors the rules kernel: Seating.promote (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}promote(
    p_tenant VARCHAR, p_slot VARCHAR, p_now TIMESTAMPTZ, p_hold_micros BIGINT, p_longest_micros BIGINT,
    p_max_upcoming INTEGER, p_max_week INTEGER, p_waitlist_cutoff_micros BIGINT, p_credit_policy VARCHAR)
RETURNS TABLE (ev_tag VARCHAR, ev_id VARCHAR)
LANGUAGE plpgsql
AS $$
DECLARE
    v_status     VARCHAR;
    v_start      TIMESTAMPTZ;
    v_end        TIMESTAMPTZ;
    v_week_start TIMESTAMPTZ;
    v_week_end   TIMESTAMPTZ;
    v_lowest     TIMESTAMPTZ;
    v_until      TIMESTAMPTZ := p_now + p_hold_micros * INTERVAL '1 microsecond';
    v_seq        INTEGER;
    v_reason     VARCHAR;
    v_waiter_status VARCHAR;
    v_cost       INTEGER;
    v_payer      VARCHAR;
    w            RECORD;
BEGIN
    -- v_end: the end of the student's time, the session's or (buffer_students) its buffer's
    SELECT s.status, s.starts_at,
           (CASE WHEN s.buffer_students THEN s.ends_at + s.buffer_seconds * INTERVAL '1 second' ELSE s.ends_at END),
           s.week_start, s.week_end, s.cost
        INTO v_status, v_start, v_end, v_week_start, v_week_end, v_cost
        FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
    IF v_status IS DISTINCT FROM 'OPEN'
            OR p_now >= v_start - COALESCE(p_waitlist_cutoff_micros, 0) * INTERVAL '1 microsecond' THEN
        RETURN;
    END IF;
    PERFORM 1 FROM ${prefix}waiter x
        WHERE x.tenant_id = p_tenant AND x.slot_id = p_slot AND x.status = 'WAITING'
        ORDER BY x.seq LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    -- the first free seat: the one the caller freed (locked by this transaction), unless one before it
    -- is free too
    SELECT s.seq INTO v_seq FROM ${prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'FREE'
        ORDER BY s.seq LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF v_seq IS NULL THEN
        RETURN;
    END IF;
    v_lowest := v_start - p_longest_micros * INTERVAL '1 microsecond';
    FOR w IN SELECT x.request_id, x.student_id, x.booking_id FROM ${prefix}waiter x
             WHERE x.tenant_id = p_tenant AND x.slot_id = p_slot AND x.status = 'WAITING'
             ORDER BY x.seq
    LOOP
        PERFORM ${prefix}lock_student(p_tenant, w.student_id);
        -- still waiting: a leave may have come first (locked by key, then checked)
        SELECT x.status INTO v_waiter_status FROM ${prefix}waiter x
            WHERE x.tenant_id = p_tenant AND x.request_id = w.request_id FOR UPDATE;
        IF v_waiter_status IS DISTINCT FROM 'WAITING' THEN
            CONTINUE;
        END IF;
        v_reason := NULL;
        PERFORM 1 FROM ${prefix}booking b
            WHERE b.tenant_id = p_tenant AND b.slot_id = p_slot AND b.student_id = w.student_id
              AND b.status IN ('HELD', 'CONFIRMED')
            LIMIT 1;
        IF FOUND THEN
            v_reason := 'ALREADY_BOOKED';
        ELSE
            PERFORM 1 FROM ${prefix}occupancy o
                LEFT JOIN LATERAL (SELECT d.status, d.held_until FROM ${prefix}booking d
                                   WHERE d.tenant_id = p_tenant AND d.booking_id = o.booking_id OFFSET 0) d ON TRUE
                WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = w.student_id
                  AND o.active AND o.starts_at < v_end AND o.ends_at > v_start AND o.starts_at > v_lowest
                  AND NOT COALESCE(d.status = 'HELD' AND d.held_until <= p_now, FALSE)
                ORDER BY o.resource_kind, o.resource_id, o.starts_at
                LIMIT 1;
            IF FOUND THEN
                v_reason := 'CONFLICT';
            ELSIF ${prefix}limit_reached(p_tenant, w.student_id, p_now, p_longest_micros, p_max_upcoming,
                                         p_max_week, v_week_start, v_week_end) IS NOT NULL THEN
                v_reason := 'LIMIT';
            ELSIF v_cost > 0 THEN
                -- a package that can pay: locked when it pays now, else only required
                -- (a credit in one of his dead holds is his again: given back, then looked for once more)
                FOR i IN 1 .. 2 LOOP
                    IF p_credit_policy = 'AT_BOOKING' THEN
                        v_payer := ${prefix}lock_payer(p_tenant, w.student_id, p_slot);
                    ELSE
                        v_payer := ${prefix}payer(p_tenant, w.student_id, p_slot);
                    END IF;
                    EXIT WHEN v_payer IS NOT NULL OR i = 2;
                    EXIT WHEN NOT ${prefix}refund_dead_holds(p_tenant, w.student_id, p_now);
                END LOOP;
                IF v_payer IS NULL THEN
                    v_reason := 'NO_CREDITS';
                END IF;
            END IF;
        END IF;
        IF v_reason IS NOT NULL THEN
            UPDATE ${prefix}waiter x SET status = 'SKIPPED', reason = v_reason, updated_at = p_now
                WHERE x.tenant_id = p_tenant AND x.request_id = w.request_id;
            ev_tag := 'EV_SKIPPED';
            ev_id := w.request_id;
            RETURN NEXT;
            CONTINUE;
        END IF;
        UPDATE ${prefix}slot_seat s
            SET status = 'HELD', booking_id = w.booking_id, student_id = w.student_id, held_until = v_until
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.seq = v_seq;
        INSERT INTO ${prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status,
                                      held_until, created_at, updated_at)
            VALUES (p_tenant, w.booking_id, w.request_id, p_slot, w.student_id, v_seq, 'HELD', v_until, p_now, p_now);
        INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                        booking_id, active)
            VALUES (p_tenant, 'STUDENT', w.student_id, v_start, v_end, p_slot, w.booking_id, TRUE);
        IF v_cost > 0 AND p_credit_policy = 'AT_BOOKING' THEN
            PERFORM ${prefix}charge(p_tenant, w.booking_id, v_payer, v_cost, 'DRAW', p_now);
        END IF;
        UPDATE ${prefix}waiter x SET status = 'PROMOTED', updated_at = p_now
            WHERE x.tenant_id = p_tenant AND x.request_id = w.request_id;
        ev_tag := 'EV_PROMOTED';
        ev_id := w.booking_id;
        RETURN NEXT;
        RETURN;
    END LOOP;
END;
$$;

-- The events of a seat of slot p_slot freed in this transaction (see promote): (p_event, p_booking)
-- first, then the promotion's, as tags and ids in order.
CREATE OR REPLACE FUNCTION ${prefix}freed(
    p_tenant VARCHAR, p_slot VARCHAR, p_event VARCHAR, p_booking VARCHAR, p_now TIMESTAMPTZ, p_hold_micros BIGINT,
    p_longest_micros BIGINT, p_max_upcoming INTEGER, p_max_week INTEGER, p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR, OUT tags VARCHAR[], OUT ids VARCHAR[])
LANGUAGE plpgsql
AS $$
BEGIN
    SELECT ARRAY[p_event] || COALESCE(array_agg(e.ev_tag ORDER BY e.n), ARRAY[]::VARCHAR[]),
           ARRAY[p_booking] || COALESCE(array_agg(e.ev_id ORDER BY e.n), ARRAY[]::VARCHAR[])
    INTO tags, ids
    FROM ${prefix}promote(p_tenant, p_slot, p_now, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week,
                          p_waitlist_cutoff_micros, p_credit_policy) WITH ORDINALITY AS e (ev_tag, ev_id, n);
END;
$$;

-- Retires hold p_booking on seat p_seq of slot p_slot when it is still there and ran out by p_now: the
-- slot row, then the seat row is locked, then checked (a sweeper or a takeover may have been first);
-- its credits go back and the seat is FREE. Whether it did; the caller offers the seat (freed).
-- Mirrors the rules kernel: Seating.retire (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}retire(
    p_tenant VARCHAR, p_slot VARCHAR, p_seq INTEGER, p_booking VARCHAR, p_now TIMESTAMPTZ)
RETURNS BOOLEAN
LANGUAGE plpgsql
AS $$
DECLARE
    v_status  VARCHAR;
    v_booking VARCHAR;
    v_until   TIMESTAMPTZ;
BEGIN
    PERFORM 1 FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot FOR UPDATE;
    SELECT s.status, s.booking_id, s.held_until INTO v_status, v_booking, v_until FROM ${prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.seq = p_seq FOR UPDATE;
    IF v_status = 'HELD' AND v_booking = p_booking AND v_until <= p_now THEN
        PERFORM ${prefix}refund(p_tenant, p_booking, p_now);
        PERFORM ${prefix}release(p_tenant, p_slot, p_seq, p_booking, 'EXPIRED', p_now);
        RETURN TRUE;
    END IF;
    RETURN FALSE;
END;
$$;

-- A replay of request p_request: its booking (REPLAY) or its waitlist entry (WAITLISTED_REPLAY), or no row.
-- What a request already has, as one fact row: its booking (REPLAY), else its waitlist entry
-- (WAITLISTED_REPLAY), else (when p_slot is given) the student's live booking of p_slot (ALREADY, live
-- at p_now); no row when none. One keyed statement each, in that order: on Citus a helper called inside a
-- query that reads a table would be a distributed query nested in a query on a shard, which it refuses.
CREATE OR REPLACE FUNCTION ${prefix}answered(p_tenant VARCHAR, p_request VARCHAR, p_slot VARCHAR, p_student VARCHAR,
                                             p_now TIMESTAMPTZ)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN QUERY SELECT 'REPLAY'::VARCHAR, b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                        b.status::VARCHAR, b.held_until, b.created_at, b.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                        NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER,
                        b.package_id, b.credits, b.attendance::VARCHAR
        FROM ${prefix}booking b WHERE b.tenant_id = p_tenant AND b.request_id = p_request;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM ${prefix}waiter_row(p_tenant, 'WAITLISTED_REPLAY', p_request);
    IF FOUND OR p_slot IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT 'ALREADY'::VARCHAR, l.booking_id, l.request_id, l.slot_id, l.student_id, l.seat,
                        l.status::VARCHAR, l.held_until, l.created_at, l.updated_at, NULL::VARCHAR, NULL::VARCHAR,
                        NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::VARCHAR, NULL::VARCHAR, NULL::INTEGER,
                        l.package_id, l.credits, l.attendance::VARCHAR
        FROM ${prefix}booking l
        WHERE l.tenant_id = p_tenant AND l.slot_id = p_slot AND l.student_id = p_student
          AND (l.status = 'CONFIRMED' OR (l.status = 'HELD' AND p_now < l.held_until))
        LIMIT 1;
END;
$$;

-- Mirrors the rules kernel: Holds.replay (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}replay(p_tenant VARCHAR, p_request VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN QUERY SELECT * FROM ${prefix}answered(p_tenant, p_request, NULL, NULL, NULL);
END;
$$;

-- Claims a free seat for each CLAIM row of p_want (see hold's p_no_wait; capacity: the hold's position
-- in hold_batch's arrays, whose p_tenants gives its tenant) and writes its booking and its student's
-- occupation, all in one statement: the n-th hold of a slot in p_want (by position) takes the slot's
-- n-th free seat not locked by another transaction (SKIP LOCKED: nothing waits). Answers, by position,
-- TAKEN (seat, held_until, created_at) or, when no such seat was left, RETRY (nothing written).
-- PostgreSQL prepares a table's CHECK constraints and opens its indexes for every statement that writes
-- it, so one statement for a batch's seats costs far less than three per hold. (PL/pgSQL, so that the
-- statement is planned once per session, not at every call.)
CREATE OR REPLACE FUNCTION ${prefix}claim_batch(p_tenants VARCHAR[], p_want ${prefix}fact[])
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
BEGIN
    RETURN QUERY
    WITH w AS (SELECT h.*, p_tenants[h.capacity] AS t,
                      row_number() OVER (PARTITION BY p_tenants[h.capacity], h.slot_id ORDER BY h.capacity) AS k
               FROM unnest(p_want) h),
         n AS (SELECT w.t, w.slot_id, count(*) AS wanted FROM w GROUP BY w.t, w.slot_id),
         f AS (SELECT n.t, n.slot_id, q.seq, row_number() OVER (PARTITION BY n.t, n.slot_id ORDER BY q.seq) AS k
               FROM n CROSS JOIN LATERAL (SELECT e.seq FROM ${prefix}slot_seat e
                                          WHERE e.tenant_id = n.t AND e.slot_id = n.slot_id AND e.status = 'FREE'
                                          ORDER BY e.seq LIMIT n.wanted FOR UPDATE SKIP LOCKED) q),
         c AS (UPDATE ${prefix}slot_seat s
                   SET status = w.status, booking_id = w.booking_id, student_id = w.student_id,
                       held_until = w.held_until
               FROM w JOIN f ON f.t = w.t AND f.slot_id = w.slot_id AND f.k = w.k
               WHERE s.tenant_id = f.t AND s.slot_id = f.slot_id AND s.seq = f.seq
               RETURNING w.capacity AS i, s.seq),
         b AS (INSERT INTO ${prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status,
                                             held_until, created_at, updated_at)
               SELECT w.t, w.booking_id, w.request_id, w.slot_id, w.student_id, c.seq, w.status, w.held_until,
                      w.created_at, w.created_at
               FROM c JOIN w ON w.capacity = c.i),
         o AS (INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                               booking_id, active)
               SELECT w.t, 'STUDENT', w.student_id, w.starts_at, w.ends_at, w.slot_id, w.booking_id, TRUE
               FROM c JOIN w ON w.capacity = c.i),
         v AS (INSERT INTO ${prefix}event (tenant_id, kind, booking_id, request_id, slot_id, student_id, seat,
                                           status, held_until, created_at, updated_at, written_at)
               SELECT w.t, w.status, w.booking_id, w.request_id, w.slot_id, w.student_id, c.seq, w.status,
                      w.held_until, w.created_at, w.created_at, w.created_at
               FROM c JOIN w ON w.capacity = c.i
               ORDER BY w.capacity)
    SELECT (${prefix}fact_of(CASE WHEN c.seq IS NULL THEN 'RETRY' ELSE 'TAKEN' END, seat => c.seq,
                             held_until => CASE WHEN c.seq IS NULL THEN NULL ELSE w.held_until END,
                             created_at => CASE WHEN c.seq IS NULL THEN NULL ELSE w.created_at END,
                             capacity => w.capacity)).*
    FROM w LEFT JOIN c ON c.i = w.capacity
    ORDER BY w.capacity;
END;
$$;

-- The fence of a router's move (TenantMove): refuses, with SQLSTATE SB002, a tenant this database does
-- not serve (a tenant_fence row FENCED or MOVED; no row, or OWNED, is served). Every decision calls it
-- first. It takes the tenant's fence lock shared, then reads the fence row in the next statement: a move
-- fences a tenant under the same lock taken exclusively, so it waits for every call that read the fence
-- before it, and every call after it sees the fence. Two calls of the tenant never wait for each other.
CREATE OR REPLACE FUNCTION ${prefix}fence_check(p_tenant VARCHAR)
RETURNS VOID
LANGUAGE plpgsql
AS $$
DECLARE
    v_state VARCHAR;
    v_epoch BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('${prefix}' || chr(30) || p_tenant, 0));
    SELECT f.state, f.epoch INTO v_state, v_epoch FROM ${prefix}tenant_fence f WHERE f.tenant_id = p_tenant;
    IF v_state IS DISTINCT FROM 'OWNED' AND v_state IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'SB002',
            MESSAGE = format('tenant %s is %s on this database (fence epoch %s): call its current shard', p_tenant,
                             v_state, v_epoch);
    END IF;
END;
$$;

-- ------------------------------------------------------------------------------------------------
-- The decisions.
-- ------------------------------------------------------------------------------------------------

-- Schedules a slot: locks coach and room, answers EXISTS (the stored slot, nothing written) or
-- CONFLICT rows (nothing written), else writes the slot (with its rules, its week, whether its
-- buffer keeps the booked students too, its class type, cost and series), its seats and the coach and room occupations over
-- [p_start, p_end + buffer) and answers SCHEDULED.
-- Mirrors the rules kernel: Rules.schedule (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}schedule(
    p_tenant VARCHAR, p_slot VARCHAR, p_coach VARCHAR, p_room VARCHAR,
    p_start TIMESTAMPTZ, p_end TIMESTAMPTZ, p_capacity INTEGER, p_longest_micros BIGINT,
    p_opens_at TIMESTAMPTZ, p_closes_at TIMESTAMPTZ, p_buffer_seconds INTEGER, p_cancel_policy VARCHAR,
    p_cancel_cutoff_seconds INTEGER, p_week_start TIMESTAMPTZ, p_week_end TIMESTAMPTZ, p_buffer_students BOOLEAN,
    p_class_type VARCHAR, p_cost INTEGER, p_series VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_lowest   TIMESTAMPTZ := p_start - p_longest_micros * INTERVAL '1 microsecond';
    v_padded   TIMESTAMPTZ := p_end + COALESCE(p_buffer_seconds, 0) * INTERVAL '1 second';
    v_kinds    VARCHAR[] := ARRAY['COACH', 'ROOM'];
    v_ids      VARCHAR[] := ARRAY[p_coach, p_room];
    v_clashes  BOOLEAN := FALSE;
    v_inserted INTEGER;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    -- 1. lock coach, then room (COACH sorts before ROOM), creating each lock row on first use
    FOR i IN 1 .. 2 LOOP
        PERFORM 1 FROM ${prefix}resource_lock l
            WHERE l.tenant_id = p_tenant AND l.resource_kind = v_kinds[i] AND l.resource_id = v_ids[i]
            FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO ${prefix}resource_lock (tenant_id, resource_kind, resource_id)
                VALUES (p_tenant, v_kinds[i], v_ids[i]) ON CONFLICT DO NOTHING;
            PERFORM 1 FROM ${prefix}resource_lock l
                WHERE l.tenant_id = p_tenant AND l.resource_kind = v_kinds[i] AND l.resource_id = v_ids[i]
                FOR UPDATE;
        END IF;
    END LOOP;

    -- 2. scheduled before: the stored slot, the caller compares it with its spec
    RETURN QUERY SELECT * FROM ${prefix}slot_row(p_tenant, 'EXISTS', p_slot);
    IF FOUND THEN
        RETURN;
    END IF;

    -- 3. active occupations of the coach, then of the room, overlapping the padded [p_start, p_end +
    -- buffer): one statement each, ordered by start, which only the overlap index serves
    FOR i IN 1 .. 2 LOOP
        RETURN QUERY SELECT (${prefix}fact_of('CONFLICT', o.booking_id, slot_id => o.slot_id,
                                              res_kind => o.resource_kind, res_id => o.resource_id,
                                              starts_at => o.starts_at, ends_at => o.ends_at)).*
            FROM ${prefix}occupancy o
            WHERE o.tenant_id = p_tenant AND o.resource_kind = v_kinds[i] AND o.resource_id = v_ids[i]
              AND o.active AND o.starts_at < v_padded AND o.ends_at > p_start AND o.starts_at > v_lowest
            ORDER BY o.resource_kind, o.resource_id, o.starts_at;
        v_clashes := v_clashes OR FOUND;
    END LOOP;
    IF v_clashes THEN
        RETURN;
    END IF;

    -- 4. the slot (a concurrent schedule of the same id that committed first: answer it), its seats,
    -- the coach's and the room's occupations
    INSERT INTO ${prefix}slot (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity, status,
                               opens_at, closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds,
                               week_start, week_end, buffer_students, class_type, cost, series_id)
        VALUES (p_tenant, p_slot, p_coach, p_room, p_start, p_end, p_capacity, 'OPEN', p_opens_at, p_closes_at,
                COALESCE(p_buffer_seconds, 0), p_cancel_policy, p_cancel_cutoff_seconds, p_week_start, p_week_end,
                COALESCE(p_buffer_students, FALSE), p_class_type, COALESCE(p_cost, 0), p_series)
        ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_inserted = ROW_COUNT;
    IF v_inserted = 1 THEN
        INSERT INTO ${prefix}slot_seat (tenant_id, slot_id, seq, status)
            SELECT p_tenant, p_slot, g, 'FREE' FROM generate_series(1, p_capacity) AS g;
        INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                        booking_id, active)
            VALUES (p_tenant, 'COACH', p_coach, p_start, v_padded, p_slot, NULL, TRUE),
                   (p_tenant, 'ROOM', p_room, p_start, v_padded, p_slot, NULL, TRUE);
    END IF;
    RETURN QUERY SELECT * FROM ${prefix}slot_row(p_tenant,
            (CASE WHEN v_inserted = 1 THEN 'SCHEDULED' ELSE 'EXISTS' END)::VARCHAR, p_slot);
END;
$$;

-- Holds (p_status 'HELD') or books (p_status 'CONFIRMED') a seat for a student. Answers HELD (plus
-- EV_HELD or EV_CONFIRMED), REPLAY, WAITLISTED, WAITLISTED_REPLAY, ALREADY, CONFLICT rows, LIMIT, FULL,
-- NOT_OPEN_YET, BOOKING_CLOSED, NOT_OPEN, NOT_FOUND or INSUFFICIENT_CREDITS (a slot with a cost and no
-- package of the student that can pay it; under p_credit_policy AT_BOOKING the new booking draws it); before the new booking's event come the events
-- of what it did on the way: EV_EXPIRED for every dead hold it retired or took over, EV_PROMOTED and
-- EV_SKIPPED for the waitlists of the seats the retired holds freed. A request id used by another
-- student, or a seat the student got concurrently, fails with the unique violation (SQLSTATE 23505).
-- p_no_wait (hold_batch): the hold waits for no lock but the student's and writes nothing: where it
-- would take a free seat it answers CLAIM (booking, request, slot, student, status, held_until,
-- created_at, and the occupation's starts_at and ends_at) and hold_batch claims the seat; where it
-- would do more (a slot with a cost, the waitlist, dead holds to retire or take over) it answers
-- RETRY, and the caller asks again without p_no_wait once its batch has committed.
-- Versions before p_no_wait took 15 parameters.
DROP FUNCTION IF EXISTS ${prefix}hold(VARCHAR, VARCHAR, VARCHAR, VARCHAR, VARCHAR, VARCHAR, TIMESTAMPTZ, BIGINT,
                                      BIGINT, BOOLEAN, BOOLEAN, INTEGER, INTEGER, BIGINT, VARCHAR);
-- Mirrors the rules kernel: Rules.hold (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}hold(
    p_tenant VARCHAR, p_booking VARCHAR, p_request VARCHAR, p_slot VARCHAR, p_student VARCHAR,
    p_status VARCHAR, p_now TIMESTAMPTZ, p_hold_micros BIGINT, p_longest_micros BIGINT, p_gate_held BOOLEAN,
    p_waitlist BOOLEAN, p_max_upcoming INTEGER, p_max_week INTEGER, p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR, p_no_wait BOOLEAN DEFAULT FALSE)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now         TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_held_until  TIMESTAMPTZ;
    v_start       TIMESTAMPTZ;
    v_end         TIMESTAMPTZ;
    v_student_end TIMESTAMPTZ;
    v_slot_status VARCHAR;
    v_opens_at    TIMESTAMPTZ;
    v_closes_at   TIMESTAMPTZ;
    v_week_start  TIMESTAMPTZ;
    v_week_end    TIMESTAMPTZ;
    v_lowest      TIMESTAMPTZ;
    v_seq         INTEGER;
    v_displaced   VARCHAR;
    v_waiting     BOOLEAN;
    v_limit       VARCHAR;
    v_waiter      VARCHAR;
    v_next        BIGINT;
    v_cost        INTEGER;
    v_payer       VARCHAR;
    v_paid        BOOLEAN;
    v_full        BOOLEAN;
    v_mine        VARCHAR;
    v_round       INTEGER;
    v_claimed     BOOLEAN := FALSE;
    -- the arrays start NULL (no default to evaluate at each call): appending to NULL makes a
    -- one-element array, and array_length of NULL is NULL
    v_tags        VARCHAR[];
    v_ids         VARCHAR[];
    v_conflicts   ${prefix}fact[];
    v_dead_ids    VARCHAR[];
    v_dead_slots  VARCHAR[];
    v_dead_seats  INTEGER[];
    v_replayed    BOOLEAN;
    v_occupied    BOOLEAN;
    r             RECORD;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    IF p_status IS NULL OR p_status NOT IN ('HELD', 'CONFIRMED') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_status must be HELD or CONFIRMED, got %s', p_status);
    END IF;
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL, got %s', p_credit_policy);
    END IF;
    v_held_until := v_now + p_hold_micros * INTERVAL '1 microsecond';

    -- 1. the slot
    -- v_student_end: the end of the student's time, the session's or (buffer_students) its buffer's
    SELECT s.starts_at, s.ends_at, s.status, s.opens_at, s.closes_at, s.week_start, s.week_end,
           (CASE WHEN s.buffer_students THEN s.ends_at + s.buffer_seconds * INTERVAL '1 second' ELSE s.ends_at END),
           s.cost,
           -- 4 (read here, decided below): full by committed seats, when neither the gate holds a seat
           -- for this request nor the waitlist is asked for
           -- (one probe of slot_seat_takeable_seq_ix: a FREE seat, or a HELD one whose deadline passed)
           (NOT COALESCE(p_gate_held, FALSE) AND NOT COALESCE(p_waitlist, FALSE)
            AND NOT EXISTS (SELECT 1 FROM ${prefix}slot_seat f
                            WHERE f.tenant_id = p_tenant AND f.slot_id = p_slot AND f.status IN ('FREE', 'HELD')
                              AND (CASE WHEN f.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE f.held_until END)
                                  <= v_now)),
           -- the student's live booking of the slot, in the same view as the full slot
           (SELECT l.booking_id FROM ${prefix}booking l
            WHERE l.tenant_id = p_tenant AND l.slot_id = p_slot AND l.student_id = p_student
              AND (l.status = 'CONFIRMED' OR (l.status = 'HELD' AND v_now < l.held_until)) LIMIT 1)
        INTO v_start, v_end, v_slot_status, v_opens_at, v_closes_at, v_week_start, v_week_end, v_student_end,
             v_cost, v_full, v_mine
        FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
    IF NOT FOUND THEN
        RETURN NEXT ${prefix}fact_of('NOT_FOUND');
        RETURN;
    END IF;
    v_lowest := v_start - p_longest_micros * INTERVAL '1 microsecond';

    -- 2. cancelled or over, 3. outside its booking window: only a replay of this request has an answer
    IF v_slot_status <> 'OPEN' OR v_now >= v_end
            OR (v_opens_at IS NOT NULL AND v_now < v_opens_at)
            OR (v_closes_at IS NOT NULL AND v_now >= v_closes_at) THEN
        RETURN QUERY SELECT * FROM ${prefix}replay(p_tenant, p_request);
        IF FOUND THEN
            RETURN;
        END IF;
        IF v_slot_status <> 'OPEN' OR v_now >= v_end THEN
            RETURN NEXT ${prefix}fact_of('NOT_OPEN', slot_id => p_slot, status => v_slot_status);
        ELSIF v_opens_at IS NOT NULL AND v_now < v_opens_at THEN
            RETURN NEXT ${prefix}fact_of('NOT_OPEN_YET', slot_id => p_slot, held_until => v_opens_at);
        ELSE
            RETURN NEXT ${prefix}fact_of('BOOKING_CLOSED', slot_id => p_slot, held_until => v_closes_at);
        END IF;
        RETURN;
    END IF;

    -- 4. full by committed seats (no lock taken): a replay, the student's live booking, or FULL. The
    -- answer row is built only when one exists: three keyed probes cost far less to start than it.
    -- The student check comes before capacity, on the view that found the slot full (v_mine): his live
    -- booking is answered while it is still live, locked so that the copy answered is the one decided on;
    -- a cancel of it committed since freed a seat, and the hold is decided the usual way below.
    IF v_full AND v_mine IS NOT NULL THEN
        PERFORM 1 FROM ${prefix}booking l
            WHERE l.tenant_id = p_tenant AND l.booking_id = v_mine
              AND (l.status = 'CONFIRMED' OR (l.status = 'HELD' AND v_now < l.held_until))
            FOR SHARE;
        v_full := FOUND;
    END IF;
    IF v_full THEN
        IF v_mine IS NOT NULL
                OR EXISTS (SELECT 1 FROM ${prefix}booking b WHERE b.tenant_id = p_tenant AND b.request_id = p_request)
                OR EXISTS (SELECT 1 FROM ${prefix}waiter w WHERE w.tenant_id = p_tenant AND w.request_id = p_request) THEN
            RETURN QUERY SELECT * FROM ${prefix}answered(p_tenant, p_request, p_slot, p_student, v_now);
            IF FOUND THEN
                RETURN;
            END IF;
        END IF;
        -- in a batch (p_no_wait) the view may count seats the batch itself claimed, not sold until it
        -- commits, after a seat may have been freed: a hold alone decides on committed seats only
        RETURN NEXT ${prefix}fact_of(CASE WHEN p_no_wait THEN 'RETRY' ELSE 'FULL' END);
        RETURN;
    END IF;

    -- no waiting in a batch: a paid seat locks a package, the waitlist the slot row
    IF p_no_wait AND (v_cost > 0 OR COALESCE(p_waitlist, FALSE)) THEN
        RETURN NEXT ${prefix}fact_of('RETRY');
        RETURN;
    END IF;

    -- 5. everything about this student is decided under his lock (created on first use)
    PERFORM ${prefix}lock_student(p_tenant, p_student);

    -- 6. a replay of this request (any status, any slot: the caller refuses a mismatch); probed first,
    -- as in step 4, since a new request has none. The same statement probes step 7's occupations.
    SELECT EXISTS (SELECT 1 FROM ${prefix}booking b WHERE b.tenant_id = p_tenant AND b.request_id = p_request)
               OR EXISTS (SELECT 1 FROM ${prefix}waiter w WHERE w.tenant_id = p_tenant AND w.request_id = p_request),
           EXISTS (SELECT 1 FROM ${prefix}occupancy o
                   WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
                     AND o.active AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest)
        INTO v_replayed, v_occupied;
    IF v_replayed THEN
        RETURN QUERY SELECT * FROM ${prefix}replay(p_tenant, p_request);
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;

    -- 7, 8. the student's active occupations overlapping the slot's student time [v_start,
    -- v_student_end), with their bookings (read by primary key: OFFSET 0 keeps the lookup a separate,
    -- keyed scan). The live booking of this slot answers ALREADY; else each other live one is a CONFLICT
    -- row; each dead hold (this slot's too) is retired in step 10. Probed in step 6's statement: a
    -- student with no occupation there (most requests) skips opening the loop's cursor. Occupations of a
    -- student are written only under his lock, held since step 5, so the probe and the loop see the same
    -- rows.
    IF v_occupied THEN
    FOR r IN SELECT o.booking_id, o.slot_id, o.resource_kind, o.resource_id, o.starts_at, o.ends_at,
                    d.request_id, d.student_id, d.seat, d.status, d.held_until, d.created_at, d.updated_at,
                    d.package_id, d.credits, d.attendance
             FROM ${prefix}occupancy o
             LEFT JOIN LATERAL (SELECT d.request_id, d.student_id, d.seat, d.status, d.held_until, d.created_at,
                                       d.updated_at, d.package_id, d.credits, d.attendance
                                FROM ${prefix}booking d
                                WHERE d.tenant_id = p_tenant AND d.booking_id = o.booking_id OFFSET 0) d ON TRUE
             WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest
             ORDER BY o.resource_kind, o.resource_id, o.starts_at
    LOOP
        IF r.status = 'HELD' AND r.held_until <= v_now THEN
            v_dead_ids := v_dead_ids || r.booking_id;
            v_dead_slots := v_dead_slots || r.slot_id;
            v_dead_seats := v_dead_seats || r.seat;
        ELSIF r.slot_id = p_slot AND r.status IN ('HELD', 'CONFIRMED') THEN
            RETURN NEXT ${prefix}fact_of('ALREADY', r.booking_id, r.request_id, r.slot_id, r.student_id, r.seat, r.status,
                                    r.held_until, r.created_at, r.updated_at, ref_id => r.package_id,
                                    amount => r.credits, note => r.attendance);
            RETURN;
        ELSE
            v_conflicts := v_conflicts || ${prefix}fact_of('CONFLICT', r.booking_id, slot_id => r.slot_id,
                                                            res_kind => r.resource_kind, res_id => r.resource_id,
                                                            starts_at => r.starts_at, ends_at => r.ends_at);
        END IF;
    END LOOP;
    END IF;
    IF array_length(v_conflicts, 1) > 0 THEN
        RETURN QUERY SELECT * FROM unnest(v_conflicts);
        RETURN;
    END IF;

    -- 9. the student's limits (upcoming first, then this slot's week), when the tenant sets one
    IF COALESCE(p_max_upcoming, 0) > 0 OR COALESCE(p_max_week, 0) > 0 THEN
        v_limit := ${prefix}limit_reached(p_tenant, p_student, v_now, p_longest_micros, p_max_upcoming, p_max_week,
                                          v_week_start, v_week_end);
        IF v_limit IS NOT NULL THEN
            RETURN NEXT ${prefix}fact_of('LIMIT', res_kind => v_limit,
                                    seat => CASE WHEN v_limit = 'UPCOMING' THEN p_max_upcoming ELSE p_max_week END);
            RETURN;
        END IF;
    END IF;

    -- no waiting in a batch: retiring a dead hold locks another slot's rows
    IF p_no_wait AND array_length(v_dead_ids, 1) > 0 THEN
        RETURN NEXT ${prefix}fact_of('RETRY');
        RETURN;
    END IF;

    -- 10. retire the student's dead holds found in steps 7 and 8 (see retire): the one of this slot,
    -- then those overlapping it. Each freed seat goes to its slot's waitlist.
    FOR i IN 1 .. COALESCE(array_length(v_dead_ids, 1), 0) LOOP
        IF ${prefix}retire(p_tenant, v_dead_slots[i], v_dead_seats[i], v_dead_ids[i], v_now) THEN
            SELECT v_tags || f.tags, v_ids || f.ids INTO v_tags, v_ids
                FROM ${prefix}freed(p_tenant, v_dead_slots[i], 'EV_EXPIRED', v_dead_ids[i], v_now, p_hold_micros,
                                    p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros,
                                    p_credit_policy) f;
        END IF;
    END LOOP;

    -- 10b. a slot with a cost: the student needs a package that can pay it, for a seat and for a place
    -- on the waitlist alike (read here without a lock; a seat's draw locks and checks it again)
    IF v_cost > 0 THEN
        v_payer := ${prefix}payer(p_tenant, p_student, p_slot);
        -- a credit in one of his dead holds (any slot) is his again: given back, then looked for once more
        IF v_payer IS NULL THEN
            IF ${prefix}refund_dead_holds(p_tenant, p_student, v_now) THEN
                v_payer := ${prefix}payer(p_tenant, p_student, p_slot);
            END IF;
        END IF;
        IF v_payer IS NULL THEN
            RETURN NEXT ${prefix}fact_of('INSUFFICIENT_CREDITS', slot_id => p_slot, seat => v_cost);
            RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
            RETURN;
        END IF;
    END IF;

    -- 11. claim: the first free seat, else (only while nobody waits for the slot) the oldest dead
    -- hold's seat, skipping seats other claims have locked; then both again waiting for them (such a
    -- claim may yet roll back)
    -- A seat not paid now is claimed and written in one statement (v_claimed); a paid one is written
    -- after its package is locked and checked.
    v_paid := v_cost > 0 AND p_credit_policy = 'AT_BOOKING';
    -- in a batch an unpaid seat is claimed, and its booking written, by hold_batch together with the
    -- other holds' (see claim_batch): the CLAIM row carries what that needs
    IF p_no_wait AND NOT v_paid THEN
        RETURN NEXT ${prefix}fact_of('CLAIM', p_booking, p_request, p_slot, p_student, NULL, p_status, v_held_until,
                                     v_now, v_now, starts_at => v_start, ends_at => v_student_end);
        RETURN;
    END IF;
    IF v_paid THEN
        SELECT s.seq INTO v_seq FROM ${prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'FREE'
            ORDER BY s.seq LIMIT 1 FOR UPDATE SKIP LOCKED;
    ELSE
        UPDATE ${prefix}slot_seat s
            SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot
              AND s.seq = (SELECT f.seq FROM ${prefix}slot_seat f
                           WHERE f.tenant_id = p_tenant AND f.slot_id = p_slot AND f.status = 'FREE'
                           ORDER BY f.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING s.seq INTO v_seq;
        v_claimed := v_seq IS NOT NULL;
    END IF;
    IF v_seq IS NULL THEN
        v_waiting := EXISTS (SELECT 1 FROM ${prefix}waiter x
                             WHERE x.tenant_id = p_tenant AND x.slot_id = p_slot AND x.status = 'WAITING');
        IF NOT v_waiting THEN
            SELECT s.seq, s.booking_id INTO v_seq, v_displaced FROM ${prefix}slot_seat s
                WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status IN ('FREE', 'HELD')
                  AND (CASE WHEN s.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE s.held_until END)
                      > '-infinity'::TIMESTAMPTZ
                  AND (CASE WHEN s.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE s.held_until END) <= v_now
                ORDER BY (CASE WHEN s.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE s.held_until END)
                LIMIT 1 FOR UPDATE SKIP LOCKED;
        END IF;
        -- a free seat the claim waited for may have been taken by the transaction it waited for, while
        -- another one was freed by a commit its statement's view began before: a new statement sees
        -- that one. No free seat in a statement's view is a full slot at that instant.
        FOR v_round IN 1 .. 50 LOOP
            EXIT WHEN v_seq IS NOT NULL
                OR NOT EXISTS (SELECT 1 FROM ${prefix}slot_seat s
                               WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'FREE');
            SELECT s.seq INTO v_seq FROM ${prefix}slot_seat s
                WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'FREE'
                ORDER BY s.seq LIMIT 1 FOR UPDATE;
        END LOOP;
        IF v_seq IS NULL AND NOT v_waiting THEN
            SELECT s.seq, s.booking_id INTO v_seq, v_displaced FROM ${prefix}slot_seat s
                WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status IN ('FREE', 'HELD')
                  AND (CASE WHEN s.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE s.held_until END)
                      > '-infinity'::TIMESTAMPTZ
                  AND (CASE WHEN s.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE s.held_until END) <= v_now
                ORDER BY (CASE WHEN s.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE s.held_until END)
                LIMIT 1 FOR UPDATE;
        END IF;
    END IF;

    -- 12. no seat: the waitlist, when asked for and before its cutoff. Under the slot row's lock (which
    -- every seat freeing takes before promoting), a seat freed meanwhile is claimed instead.
    IF v_seq IS NULL AND COALESCE(p_waitlist, FALSE)
            AND v_now < v_start - COALESCE(p_waitlist_cutoff_micros, 0) * INTERVAL '1 microsecond' THEN
        SELECT s.status INTO v_slot_status FROM ${prefix}slot s
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot FOR UPDATE;
        IF v_slot_status <> 'OPEN' THEN
            RETURN NEXT ${prefix}fact_of('NOT_OPEN', slot_id => p_slot, status => v_slot_status);
            RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
            RETURN;
        END IF;
        SELECT s.seq INTO v_seq FROM ${prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'FREE'
            ORDER BY s.seq LIMIT 1 FOR UPDATE;
        IF v_seq IS NULL THEN
            SELECT x.request_id INTO v_waiter FROM ${prefix}waiter x
                WHERE x.tenant_id = p_tenant AND x.slot_id = p_slot AND x.student_id = p_student
                  AND x.status = 'WAITING'
                LIMIT 1;
            IF FOUND THEN
                RETURN QUERY SELECT * FROM ${prefix}waiter_row(p_tenant, 'WAITLISTED_REPLAY', v_waiter);
            ELSE
                -- in line after the slot's last waiting entry (under the slot row's lock): the identity alone
                -- could sort it first, as Citus gives each worker a range of numbers of its own and a tenant
                -- moved to another worker keeps its rows' numbers
                SELECT max(x.seq) + 1 INTO v_next FROM ${prefix}waiter x
                    WHERE x.tenant_id = p_tenant AND x.slot_id = p_slot AND x.status = 'WAITING';
                INSERT INTO ${prefix}waiter (tenant_id, request_id, slot_id, student_id, booking_id, seq, status,
                                             joined_at, updated_at)
                    VALUES (p_tenant, p_request, p_slot, p_student, p_booking,
                            COALESCE(v_next, nextval(pg_get_serial_sequence('${prefix}waiter', 'seq'))), 'WAITING',
                            v_now, v_now);
                RETURN QUERY SELECT * FROM ${prefix}waiter_row(p_tenant, 'WAITLISTED', p_request);
            END IF;
            RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
            RETURN;
        END IF;
    END IF;

    IF v_seq IS NULL THEN
        -- no seat; dead holds retired above stay retired
        RETURN NEXT ${prefix}fact_of('FULL');
        RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
        RETURN;
    END IF;

    -- a seat that is paid now: lock the paying package and check it again (after the seat's lock)
    IF v_paid THEN
        v_payer := ${prefix}lock_payer(p_tenant, p_student, p_slot);
        IF v_payer IS NULL THEN
            RETURN NEXT ${prefix}fact_of('INSUFFICIENT_CREDITS', slot_id => p_slot, seat => v_cost);
            RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
            RETURN;
        END IF;
    END IF;

    -- the seat row is locked by the statement that found it, and was checked by it
    IF NOT v_claimed THEN
        UPDATE ${prefix}slot_seat s
            SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
            WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.seq = v_seq;
    END IF;
    IF v_displaced IS NOT NULL THEN
        PERFORM ${prefix}refund(p_tenant, v_displaced, v_now);
        UPDATE ${prefix}booking b SET status = 'EXPIRED', updated_at = v_now
            WHERE b.tenant_id = p_tenant AND b.booking_id = v_displaced;
        UPDATE ${prefix}occupancy o SET active = FALSE
            WHERE o.tenant_id = p_tenant AND o.booking_id = v_displaced AND o.active IS NOT FALSE;
        v_tags := v_tags || 'EV_EXPIRED'::VARCHAR;
        v_ids := v_ids || v_displaced;
    END IF;

    -- 13. the booking and the student's occupation (over the slot's student time)
    INSERT INTO ${prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status,
                                  held_until, created_at, updated_at)
        VALUES (p_tenant, p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until, v_now, v_now);
    INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                    booking_id, active)
        VALUES (p_tenant, 'STUDENT', p_student, v_start, v_student_end, p_slot, p_booking, TRUE);
    IF v_paid THEN
        PERFORM ${prefix}charge(p_tenant, p_booking, v_payer, v_cost, 'DRAW', v_now);
        v_tags := v_tags || ('EV_' || p_status)::VARCHAR;
        v_ids := v_ids || p_booking;
        RETURN QUERY SELECT * FROM ${prefix}booking_row(p_tenant, 'HELD', p_booking, NULL);
        RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
        RETURN;
    END IF;
    -- an unpaid booking is the row just written: answered without reading it back
    RETURN NEXT ${prefix}fact_of('HELD', p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until, v_now,
                                 v_now, amount => 0, note => 'NONE');
    IF array_length(v_tags, 1) > 0 THEN
        RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
    END IF;
    INSERT INTO ${prefix}event (tenant_id, kind, booking_id, request_id, slot_id, student_id, seat, status,
                                held_until, created_at, updated_at, written_at)
        VALUES (p_tenant, p_status, p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until, v_now,
                v_now, v_now);
    RETURN NEXT ${prefix}fact_of('EV_' || p_status, p_booking, p_request, p_slot, p_student, v_seq, p_status,
                                 v_held_until, v_now, v_now, amount => 0, note => 'NONE');
END;
$$;

-- Confirms the student's hold: CONFIRMED (plus EV_CONFIRMED when this call confirmed it),
-- HOLD_EXPIRED (plus EV_EXPIRED when this call expired it, then the promotion's events),
-- ALREADY_CANCELLED or NOT_FOUND.
-- Mirrors the rules kernel: Rules.confirm (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}confirm(
    p_tenant VARCHAR, p_booking VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ, p_hold_micros BIGINT,
    p_longest_micros BIGINT, p_max_upcoming INTEGER, p_max_week INTEGER, p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now    TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_tags   VARCHAR[] := ARRAY[]::VARCHAR[];
    v_ids    VARCHAR[] := ARRAY[]::VARCHAR[];
    v_slot   VARCHAR;
    v_seq    INTEGER;
    v_status VARCHAR;
    v_until  TIMESTAMPTZ;
    v_tag    VARCHAR;
    v_seat_status  VARCHAR;
    v_seat_booking VARCHAR;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL, got %s', p_credit_policy);
    END IF;
    SELECT b.slot_id, b.seat, b.status, b.held_until INTO v_slot, v_seq, v_status, v_until FROM ${prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking AND b.student_id = p_student;
    IF NOT FOUND THEN
        RETURN NEXT ${prefix}fact_of('NOT_FOUND');
        RETURN;
    END IF;
    -- a hold that ran out frees its seat: the slot row first (a hold's deadline never moves)
    IF v_status = 'HELD' AND v_now >= v_until THEN
        PERFORM 1 FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot FOR UPDATE;
    END IF;
    -- the seat row first: every change of a booking goes through it
    SELECT s.status, s.booking_id INTO v_seat_status, v_seat_booking FROM ${prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq FOR UPDATE;
    SELECT b.status, b.held_until INTO v_status, v_until FROM ${prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF v_status = 'CANCELLED' THEN
        RETURN NEXT ${prefix}fact_of('ALREADY_CANCELLED');
        RETURN;
    ELSIF v_status = 'CONFIRMED' THEN
        v_tag := 'CONFIRMED';
    ELSIF v_status = 'EXPIRED' THEN
        v_tag := 'HOLD_EXPIRED';
    ELSIF v_now < v_until THEN
        IF v_seat_status IS DISTINCT FROM 'HELD' OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is HELD, its seat is not', p_booking;
        END IF;
        UPDATE ${prefix}slot_seat s SET status = 'CONFIRMED'
            WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq;
        UPDATE ${prefix}booking b SET status = 'CONFIRMED', updated_at = v_now
            WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
        v_tag := 'CONFIRMED';
        v_tags := ARRAY['EV_CONFIRMED']::VARCHAR[];
        v_ids := ARRAY[p_booking];
    ELSE
        IF v_seat_status IS DISTINCT FROM 'HELD' OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is HELD, its seat is not', p_booking;
        END IF;
        PERFORM ${prefix}refund(p_tenant, p_booking, v_now);
        PERFORM ${prefix}release(p_tenant, v_slot, v_seq, p_booking, 'EXPIRED', v_now);
        v_tag := 'HOLD_EXPIRED';
        SELECT f.tags, f.ids INTO v_tags, v_ids
            FROM ${prefix}freed(p_tenant, v_slot, 'EV_EXPIRED', p_booking, v_now, p_hold_micros, p_longest_micros,
                                p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, p_credit_policy) f;
    END IF;
    RETURN QUERY SELECT * FROM ${prefix}booking_row(p_tenant, v_tag, p_booking, NULL);
    RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
END;
$$;

-- Cancels a booking, the student's own (p_student) or, for staff (p_student NULL), any of the tenant:
-- CANCELLED (res_kind 'LATE' after the cutoff) plus EV_CANCELLED or EV_LATE_CANCELLED, then the
-- promotion's events; TOO_LATE (held_until = the cutoff) when the policy refuses a student's late
-- cancel; ALREADY_CANCELLED with the booking (plus EV_EXPIRED and the promotion's events when this
-- call retired a hold that had run out); NOT_FOUND. The policy is the slot's own when it has one,
-- else p_cancel_policy with p_cancel_cutoff_micros (NULL: never late). A student's cancel of a booking
-- checked in or marked a no-show: TOO_LATE with held_until = the start. Credits: a late cancel by the
-- student keeps them (AT_BOOKING) or forfeits the cost (AT_CHECK_IN); any other cancel and a retired
-- expired hold refund them.
-- Mirrors the rules kernel: Rules.cancel (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}cancel(
    p_tenant VARCHAR, p_booking VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ, p_cancel_policy VARCHAR,
    p_cancel_cutoff_micros BIGINT, p_hold_micros BIGINT, p_longest_micros BIGINT, p_max_upcoming INTEGER,
    p_max_week INTEGER, p_waitlist_cutoff_micros BIGINT, p_credit_policy VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now    TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_slot   VARCHAR;
    v_seq    INTEGER;
    v_owner  VARCHAR;
    v_status VARCHAR;
    v_until  TIMESTAMPTZ;
    v_tag    VARCHAR;
    v_kind   VARCHAR;
    v_event  VARCHAR;
    v_tags   VARCHAR[] := ARRAY[]::VARCHAR[];
    v_ids    VARCHAR[] := ARRAY[]::VARCHAR[];
    v_start  TIMESTAMPTZ;
    v_policy VARCHAR;
    v_slot_policy VARCHAR;
    v_slot_cutoff INTEGER;
    v_cutoff_at   TIMESTAMPTZ;
    v_late   BOOLEAN;
    v_attendance   VARCHAR;
    v_seat_status  VARCHAR;
    v_seat_booking VARCHAR;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL, got %s', p_credit_policy);
    END IF;
    IF p_cancel_policy IS NOT NULL AND p_cancel_policy NOT IN ('FREE', 'REFUSE', 'LATE') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_cancel_policy must be FREE, REFUSE, LATE or NULL, got %s', p_cancel_policy);
    END IF;
    SELECT b.slot_id, b.seat, b.student_id, b.status INTO v_slot, v_seq, v_owner, v_status FROM ${prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF NOT FOUND OR (p_student IS NOT NULL AND v_owner <> p_student) THEN
        RETURN NEXT ${prefix}fact_of('NOT_FOUND');
        RETURN;
    END IF;
    -- an active booking frees its seat: the slot row first, then the seat row, then the booking again
    IF v_status IN ('HELD', 'CONFIRMED') THEN
        SELECT s.starts_at, s.cancel_policy, s.cancel_cutoff_seconds INTO v_start, v_slot_policy, v_slot_cutoff
            FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot FOR UPDATE;
    END IF;
    SELECT s.status, s.booking_id INTO v_seat_status, v_seat_booking FROM ${prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq FOR UPDATE;
    SELECT b.status, b.held_until, b.attendance INTO v_status, v_until, v_attendance FROM ${prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF v_status IN ('CANCELLED', 'EXPIRED') THEN
        v_tag := 'ALREADY_CANCELLED';
    ELSIF v_status = 'HELD' AND v_now >= v_until THEN
        -- the hold ran out: nothing to cancel, but retire it now
        IF v_seat_status IS DISTINCT FROM 'HELD' OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is HELD, its seat is not', p_booking;
        END IF;
        PERFORM ${prefix}refund(p_tenant, p_booking, v_now);
        PERFORM ${prefix}release(p_tenant, v_slot, v_seq, p_booking, 'EXPIRED', v_now);
        v_tag := 'ALREADY_CANCELLED';
        v_event := 'EV_EXPIRED';
    ELSE
        IF v_seat_status IS DISTINCT FROM v_status OR v_seat_booking IS DISTINCT FROM p_booking THEN
            RAISE EXCEPTION 'ledger rows disagree: booking % is %, its seat is not', p_booking, v_status;
        END IF;
        IF p_student IS NOT NULL AND v_attendance IS DISTINCT FROM 'NONE' THEN
            -- the student came (or was marked absent): only staff may still cancel
            RETURN NEXT ${prefix}fact_of('TOO_LATE', p_booking, held_until => v_start);
            RETURN;
        END IF;
        IF v_slot_policy IS NOT NULL THEN
            v_policy := v_slot_policy;
            v_cutoff_at := v_start - v_slot_cutoff * INTERVAL '1 second';
        ELSE
            v_policy := COALESCE(p_cancel_policy, 'FREE');
            v_cutoff_at := v_start - p_cancel_cutoff_micros * INTERVAL '1 microsecond';
        END IF;
        -- a hold never confirmed is no booking yet: never late, never charged
        v_late := v_status = 'CONFIRMED' AND v_cutoff_at IS NOT NULL AND v_now >= v_cutoff_at;
        IF v_late AND v_policy = 'REFUSE' AND p_student IS NOT NULL THEN
            RETURN NEXT ${prefix}fact_of('TOO_LATE', p_booking, held_until => v_cutoff_at);
            RETURN;
        END IF;
        -- a late cancel by the student keeps the credits (or forfeits them); any other cancel refunds
        IF v_late AND p_student IS NOT NULL THEN
            PERFORM ${prefix}forfeit(p_tenant, p_booking, p_credit_policy, v_now);
        ELSE
            PERFORM ${prefix}refund(p_tenant, p_booking, v_now);
        END IF;
        PERFORM ${prefix}release(p_tenant, v_slot, v_seq, p_booking, 'CANCELLED', v_now);
        IF v_late THEN
            UPDATE ${prefix}booking b SET late_cancel = TRUE
                WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
            v_kind := 'LATE';
            v_event := 'EV_LATE_CANCELLED';
        ELSE
            v_event := 'EV_CANCELLED';
        END IF;
        v_tag := 'CANCELLED';
    END IF;
    IF v_event IS NOT NULL THEN
        SELECT f.tags, f.ids INTO v_tags, v_ids
            FROM ${prefix}freed(p_tenant, v_slot, v_event, p_booking, v_now, p_hold_micros, p_longest_micros,
                                p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, p_credit_policy) f;
    END IF;
    RETURN QUERY SELECT * FROM ${prefix}booking_row(p_tenant, v_tag, p_booking, v_kind);
    RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
END;
$$;

-- Calls a slot off: SLOT_CANCELLED (the slot) plus one EV_CANCELLED per booking it cancelled, by
-- seat (each refunded first); ALREADY_CANCELLED; NOT_FOUND. Nobody is promoted; the waitlist stays as
-- it is.
-- Mirrors the rules kernel: Rules.cancelSlot (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}cancel_slot(p_tenant VARCHAR, p_slot VARCHAR, p_now TIMESTAMPTZ)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now  TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_tags VARCHAR[] := ARRAY[]::VARCHAR[];
    v_ids  VARCHAR[] := ARRAY[]::VARCHAR[];
    r      RECORD;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    UPDATE ${prefix}slot s SET status = 'CANCELLED'
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status = 'OPEN';
    IF NOT FOUND THEN
        PERFORM 1 FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot;
        RETURN NEXT ${prefix}fact_of(CASE WHEN FOUND THEN 'ALREADY_CANCELLED' ELSE 'NOT_FOUND' END);
        RETURN;
    END IF;
    -- every seat, free ones included: a claim in flight holds its seat's lock, so this waits for it,
    -- and no claim can take a seat of this slot afterwards
    UPDATE ${prefix}slot_seat s
        SET status = 'CLOSED', booking_id = NULL, student_id = NULL, held_until = NULL
        WHERE s.tenant_id = p_tenant AND s.slot_id = p_slot AND s.status <> 'CLOSED';
    -- every live booking: its credits back, then cancelled
    FOR r IN SELECT b.booking_id AS id FROM ${prefix}booking b
             WHERE b.tenant_id = p_tenant AND b.slot_id = p_slot AND b.status IN ('HELD', 'CONFIRMED')
             ORDER BY b.seat
    LOOP
        PERFORM ${prefix}refund(p_tenant, r.id, v_now);
        UPDATE ${prefix}booking b SET status = 'CANCELLED', updated_at = v_now
            WHERE b.tenant_id = p_tenant AND b.booking_id = r.id;
        v_tags := v_tags || 'EV_CANCELLED'::VARCHAR;
        v_ids := v_ids || r.id;
    END LOOP;
    UPDATE ${prefix}occupancy o SET active = FALSE
        WHERE o.tenant_id = p_tenant AND o.slot_id = p_slot AND o.active IS NOT FALSE;
    RETURN QUERY SELECT * FROM ${prefix}slot_row(p_tenant, 'SLOT_CANCELLED', p_slot);
    RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
END;
$$;

-- Expires up to p_limit holds of the tenant that ran out (oldest deadline first): one EV_EXPIRED row
-- per booking this call expired (refunded), each followed by the events of its seat's promotion. Then,
-- when p_marks_no_shows, marks with what is left of p_limit the CONFIRMED bookings not checked in whose
-- check-in closed (end + p_check_in_closes_micros <= now): attendance NO_SHOW (and under AT_CHECK_IN a
-- FORFEIT), one EV_NO_SHOW row each. Safe on several nodes at once: the seat row, locked (after its
-- slot row, for an expiry) and checked, decides.
-- Mirrors the rules kernel: Rules.expireDue (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}expire_due(
    p_tenant VARCHAR, p_now TIMESTAMPTZ, p_limit INTEGER, p_hold_micros BIGINT, p_longest_micros BIGINT,
    p_max_upcoming INTEGER, p_max_week INTEGER, p_waitlist_cutoff_micros BIGINT, p_credit_policy VARCHAR,
    p_marks_no_shows BOOLEAN, p_check_in_closes_micros BIGINT)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now          TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_status       VARCHAR;
    v_attendance   VARCHAR;
    v_tags         VARCHAR[];
    v_ids          VARCHAR[];
    v_done         INTEGER := 0;
    r              RECORD;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL, got %s', p_credit_policy);
    END IF;
    IF p_limit IS NULL OR p_limit <= 0 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('p_limit must be positive, got %s', p_limit);
    END IF;
    FOR r IN SELECT d.booking_id AS id, d.slot_id AS slot, d.seat AS seq FROM ${prefix}booking d
             WHERE d.tenant_id = p_tenant AND d.status = 'HELD' AND d.held_until <= v_now
             ORDER BY d.held_until LIMIT p_limit
    LOOP
        -- another sweeper or a takeover may have been first (see retire)
        IF ${prefix}retire(p_tenant, r.slot, r.seq, r.id, v_now) THEN
            v_done := v_done + 1;
            SELECT f.tags, f.ids INTO v_tags, v_ids
                FROM ${prefix}freed(p_tenant, r.slot, 'EV_EXPIRED', r.id, v_now, p_hold_micros, p_longest_micros,
                                    p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, p_credit_policy) f;
            RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, v_tags, v_ids);
        END IF;
    END LOOP;
    IF NOT COALESCE(p_marks_no_shows, FALSE) OR v_done >= p_limit THEN
        RETURN;
    END IF;
    FOR r IN SELECT d.booking_id AS id, d.slot_id AS slot, d.seat AS seq
             FROM ${prefix}booking d
             JOIN ${prefix}slot s ON s.tenant_id = d.tenant_id AND s.slot_id = d.slot_id
             WHERE d.tenant_id = p_tenant AND d.status = 'CONFIRMED' AND d.attendance = 'NONE'
               AND s.ends_at + COALESCE(p_check_in_closes_micros, 0) * INTERVAL '1 microsecond' <= v_now
             ORDER BY s.ends_at, d.booking_id
             LIMIT p_limit - v_done
    LOOP
        -- the seat row decides between sweepers, a check-in and a cancel: lock it, then check the booking
        PERFORM 1 FROM ${prefix}slot_seat s
            WHERE s.tenant_id = p_tenant AND s.slot_id = r.slot AND s.seq = r.seq FOR UPDATE;
        SELECT b.status, b.attendance INTO v_status, v_attendance FROM ${prefix}booking b
            WHERE b.tenant_id = p_tenant AND b.booking_id = r.id;
        IF v_status = 'CONFIRMED' AND v_attendance = 'NONE' THEN
            PERFORM ${prefix}forfeit(p_tenant, r.id, p_credit_policy, v_now);
            UPDATE ${prefix}booking b SET attendance = 'NO_SHOW', updated_at = v_now
                WHERE b.tenant_id = p_tenant AND b.booking_id = r.id;
            RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, ARRAY['EV_NO_SHOW']::VARCHAR[], ARRAY[r.id]::VARCHAR[]);
        END IF;
    END LOOP;
END;
$$;

-- Takes a student's entry off a slot's waitlist: LEFT (the entry, now LEFT), NOT_WAITING (the entry,
-- promoted, skipped or left before), NOT_FOUND (no entry of this request, or another student's).
-- Mirrors the rules kernel: Rules.leaveWaitlist (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}leave_waitlist(
    p_tenant VARCHAR, p_request VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now     TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_student VARCHAR;
    v_status  VARCHAR;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    SELECT w.student_id, w.status INTO v_student, v_status FROM ${prefix}waiter w
        WHERE w.tenant_id = p_tenant AND w.request_id = p_request FOR UPDATE;
    IF NOT FOUND OR v_student <> p_student THEN
        RETURN NEXT ${prefix}fact_of('NOT_FOUND');
        RETURN;
    END IF;
    IF v_status = 'WAITING' THEN
        UPDATE ${prefix}waiter w SET status = 'LEFT', updated_at = v_now
            WHERE w.tenant_id = p_tenant AND w.request_id = p_request;
        RETURN QUERY SELECT * FROM ${prefix}waiter_row(p_tenant, 'LEFT', p_request);
    ELSE
        RETURN QUERY SELECT * FROM ${prefix}waiter_row(p_tenant, 'NOT_WAITING', p_request);
    END IF;
END;
$$;

-- ------------------------------------------------------------------------------------------------
-- Lessons: packages, attendance, weekly series.
-- ------------------------------------------------------------------------------------------------

-- Grants a package: GRANTED with the package (remaining = p_credits) and its GRANT journal entry, or
-- PACKAGE_EXISTS with the stored package when the tenant has this package id (nothing written; the
-- caller compares). p_class_types: sorted, joined by ','; '' for any session.
-- Mirrors the rules kernel: Rules.grantPackage (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}grant_package(
    p_tenant VARCHAR, p_package VARCHAR, p_student VARCHAR, p_credits INTEGER, p_valid_from TIMESTAMPTZ,
    p_valid_until TIMESTAMPTZ, p_class_types VARCHAR, p_now TIMESTAMPTZ)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now      TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_inserted INTEGER;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    RETURN QUERY SELECT * FROM ${prefix}package_row(p_tenant, 'PACKAGE_EXISTS', p_package);
    IF FOUND THEN
        RETURN;
    END IF;
    INSERT INTO ${prefix}lesson_package (tenant_id, package_id, student_id, credits, remaining, valid_from,
                                         valid_until, class_types, granted_at)
        VALUES (p_tenant, p_package, p_student, p_credits, p_credits, p_valid_from, p_valid_until,
                COALESCE(p_class_types, ''), v_now)
        ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_inserted = ROW_COUNT;
    IF v_inserted = 1 THEN
        INSERT INTO ${prefix}credit_entry (tenant_id, package_id, reason, delta, booking_id, request_id, at)
            VALUES (p_tenant, p_package, 'GRANT', p_credits, NULL, NULL, v_now);
    END IF;
    RETURN QUERY SELECT * FROM ${prefix}package_row(p_tenant,
            (CASE WHEN v_inserted = 1 THEN 'GRANTED' ELSE 'PACKAGE_EXISTS' END)::VARCHAR, p_package);
END;
$$;

-- Checks a CONFIRMED booking in within [start - p_opens_before_micros, end + p_closes_after_micros):
-- CHECKED_IN (plus EV_CHECKED_IN), CHECKED_IN_REPLAY, NOT_CONFIRMED, CHECK_IN_NOT_OPEN or
-- CHECK_IN_CLOSED (held_until = when it opens or closed; closed too for a no-show), INSUFFICIENT_CREDITS
-- (AT_CHECK_IN, a cost the booking has not paid and no package that can), NOT_FOUND (none, or another
-- student's; p_student NULL: staff). Under the student's lock, then the seat row's.
-- Mirrors the rules kernel: Rules.checkIn (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}check_in(
    p_tenant VARCHAR, p_booking VARCHAR, p_student VARCHAR, p_now TIMESTAMPTZ, p_opens_before_micros BIGINT,
    p_closes_after_micros BIGINT, p_credit_policy VARCHAR)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now        TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    v_slot       VARCHAR;
    v_seq        INTEGER;
    v_owner      VARCHAR;
    v_status     VARCHAR;
    v_attendance VARCHAR;
    v_credits    INTEGER;
    v_opens      TIMESTAMPTZ;
    v_closes     TIMESTAMPTZ;
    v_cost       INTEGER;
    v_payer      VARCHAR;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL, got %s', p_credit_policy);
    END IF;
    SELECT b.slot_id, b.seat, b.student_id INTO v_slot, v_seq, v_owner FROM ${prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF NOT FOUND OR (p_student IS NOT NULL AND v_owner <> p_student) THEN
        RETURN NEXT ${prefix}fact_of('NOT_FOUND');
        RETURN;
    END IF;
    PERFORM ${prefix}lock_student(p_tenant, v_owner);
    PERFORM 1 FROM ${prefix}slot_seat s
        WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot AND s.seq = v_seq FOR UPDATE;
    SELECT b.status, b.attendance, b.credits INTO v_status, v_attendance, v_credits FROM ${prefix}booking b
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    IF v_status <> 'CONFIRMED' THEN
        RETURN QUERY SELECT * FROM ${prefix}booking_row(p_tenant, 'NOT_CONFIRMED', p_booking, NULL);
        RETURN;
    END IF;
    IF v_attendance = 'CHECKED_IN' THEN
        RETURN QUERY SELECT * FROM ${prefix}booking_row(p_tenant, 'CHECKED_IN_REPLAY', p_booking, NULL);
        RETURN;
    END IF;
    SELECT s.starts_at - COALESCE(p_opens_before_micros, 0) * INTERVAL '1 microsecond',
           s.ends_at + COALESCE(p_closes_after_micros, 0) * INTERVAL '1 microsecond', s.cost
        INTO v_opens, v_closes, v_cost
        FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = v_slot;
    IF v_attendance = 'NO_SHOW' OR v_now >= v_closes THEN
        RETURN NEXT ${prefix}fact_of('CHECK_IN_CLOSED', p_booking, held_until => v_closes);
        RETURN;
    END IF;
    IF v_now < v_opens THEN
        RETURN NEXT ${prefix}fact_of('CHECK_IN_NOT_OPEN', p_booking, held_until => v_opens);
        RETURN;
    END IF;
    IF p_credit_policy = 'AT_CHECK_IN' AND v_cost > 0 AND v_credits = 0 THEN
        v_payer := ${prefix}lock_payer(p_tenant, v_owner, v_slot);
        IF v_payer IS NULL THEN
            IF ${prefix}refund_dead_holds(p_tenant, v_owner, v_now) THEN
                v_payer := ${prefix}lock_payer(p_tenant, v_owner, v_slot);
            END IF;
        END IF;
        IF v_payer IS NULL THEN
            RETURN NEXT ${prefix}fact_of('INSUFFICIENT_CREDITS', slot_id => v_slot, seat => v_cost);
            RETURN;
        END IF;
        PERFORM ${prefix}charge(p_tenant, p_booking, v_payer, v_cost, 'DRAW', v_now);
    END IF;
    UPDATE ${prefix}booking b SET attendance = 'CHECKED_IN', updated_at = v_now
        WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
    RETURN QUERY SELECT * FROM ${prefix}booking_row(p_tenant, 'CHECKED_IN', p_booking, NULL);
    RETURN QUERY SELECT * FROM ${prefix}event_rows(p_tenant, ARRAY['EV_CHECKED_IN']::VARCHAR[],
                                                     ARRAY[p_booking]::VARCHAR[]);
END;
$$;

-- Schedules the occurrences of a series in one call, each as schedule does, in order (an occurrence
-- may conflict with an earlier one of the same call). p_occurrences: records separated by chr(30),
-- fields by chr(31): slot_id, coach_id, room_id, start, end, capacity, opens_at, closes_at,
-- buffer_seconds, cancel_policy, cancel_cutoff_seconds, week_start, week_end, buffer_students ('1'/'0'),
-- class_type, cost; instants as microseconds since the epoch, '' for NULL. Answers each occurrence's
-- rows: SCHEDULED or EXISTS (the slot), or CONFLICT rows with request_id = the occurrence's slot id.
-- p_mode ALL_OR_NOTHING with a conflict: every write of the call is undone (the rows stay as answered).
-- Mirrors the rules kernel: Rules.scheduleSeries (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}schedule_series(
    p_tenant VARCHAR, p_series VARCHAR, p_mode VARCHAR, p_longest_micros BIGINT, p_occurrences TEXT)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_record   TEXT;
    f          TEXT[];
    v_conflict BOOLEAN := FALSE;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    IF p_mode IS NULL OR p_mode NOT IN ('ALL_OR_NOTHING', 'BEST_EFFORT') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_mode must be ALL_OR_NOTHING or BEST_EFFORT, got %s', p_mode);
    END IF;
    BEGIN
        FOREACH v_record IN ARRAY string_to_array(p_occurrences, chr(30)) LOOP
            f := string_to_array(v_record, chr(31));
            RETURN QUERY SELECT x.tag, x.booking_id,
                    (CASE WHEN x.tag = 'CONFLICT' THEN f[1] ELSE x.request_id END)::VARCHAR, x.slot_id,
                    x.student_id, x.seat, x.status, x.held_until, x.created_at, x.updated_at, x.res_kind, x.res_id,
                    x.starts_at, x.ends_at, x.coach_id, x.room_id, x.capacity, x.ref_id, x.amount, x.note
                FROM ${prefix}schedule(p_tenant, f[1], f[2], f[3], ${prefix}micros_ts(f[4]),
                                       ${prefix}micros_ts(f[5]), f[6]::INTEGER, p_longest_micros,
                                       ${prefix}micros_ts(f[7]), ${prefix}micros_ts(f[8]), f[9]::INTEGER,
                                       NULLIF(f[10], '')::VARCHAR, NULLIF(f[11], '')::INTEGER,
                                       ${prefix}micros_ts(f[12]), ${prefix}micros_ts(f[13]), f[14] = '1',
                                       NULLIF(f[15], '')::VARCHAR, f[16]::INTEGER, p_series) x;
            -- scheduled (now or before) exactly when its slot row exists
            v_conflict := v_conflict OR NOT EXISTS (
                SELECT 1 FROM ${prefix}slot s WHERE s.tenant_id = p_tenant AND s.slot_id = f[1]);
        END LOOP;
        IF v_conflict AND p_mode = 'ALL_OR_NOTHING' THEN
            RAISE EXCEPTION USING ERRCODE = 'SB001', MESSAGE = 'all or nothing: undo the series';
        END IF;
    EXCEPTION WHEN SQLSTATE 'SB001' THEN
        -- the block's writes are undone; the rows answered stay
        NULL;
    END;
END;
$$;

-- Cancels, as cancel_slot does, every OPEN occurrence of series p_series starting at or after p_from,
-- by start then slot id: per occurrence a SLOT_CANCELLED row (the slot) and its EV_CANCELLED rows
-- (bookings refunded). No occurrence left: no rows.
-- Mirrors the rules kernel: Rules.cancelSeries (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}cancel_series(
    p_tenant VARCHAR, p_series VARCHAR, p_from TIMESTAMPTZ, p_now TIMESTAMPTZ)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_now TIMESTAMPTZ := COALESCE(p_now, clock_timestamp());
    r     RECORD;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    FOR r IN SELECT s.slot_id AS id FROM ${prefix}slot s
             WHERE s.tenant_id = p_tenant AND s.series_id = p_series AND s.status = 'OPEN'
               AND s.starts_at >= p_from
             ORDER BY s.starts_at, s.slot_id
    LOOP
        -- a concurrent cancel may have been first: it answers ALREADY_CANCELLED, left out
        RETURN QUERY SELECT * FROM ${prefix}cancel_slot(p_tenant, r.id, v_now) c
            WHERE c.tag IN ('SLOT_CANCELLED', 'EV_CANCELLED');
    END LOOP;
END;
$$;

-- Decides several holds of one student in one call, each as hold does, in order. p_commands: records
-- separated by chr(30), fields by chr(31): booking_id, request_id, slot_id, student_id, status, now
-- (microseconds since the epoch, '' for the database clock), hold_micros, longest_micros, gate_held
-- ('1'/'0'), waitlist ('1'/'0'), max_upcoming, max_week, waitlist_cutoff_micros, credit_policy. Every
-- row of the n-th command (from 1) has capacity = n. A command succeeds when it answers HELD, or REPLAY
-- of a HELD or CONFIRMED booking; p_mode ALL_OR_NOTHING and one that does not: every write of the call
-- is undone (the rows stay as answered).
-- Mirrors the rules kernel: Rules.holdAll (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}hold_all(p_tenant VARCHAR, p_mode VARCHAR, p_commands TEXT)
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    v_record TEXT;
    f        TEXT[];
    v_n      INTEGER := 0;
    v_failed BOOLEAN := FALSE;
    v_ok     BOOLEAN;
    x        ${prefix}fact;
BEGIN
    PERFORM ${prefix}fence_check(p_tenant);
    IF p_mode IS NULL OR p_mode NOT IN ('ALL_OR_NOTHING', 'BEST_EFFORT') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('p_mode must be ALL_OR_NOTHING or BEST_EFFORT, got %s', p_mode);
    END IF;
    BEGIN
        FOREACH v_record IN ARRAY string_to_array(p_commands, chr(30)) LOOP
            f := string_to_array(v_record, chr(31));
            v_n := v_n + 1;
            v_ok := NULL;
            FOR x IN SELECT * FROM ${prefix}hold(p_tenant, f[1], f[2], f[3], f[4], f[5], ${prefix}micros_ts(f[6]),
                                                 f[7]::BIGINT, f[8]::BIGINT, f[9] = '1', f[10] = '1',
                                                 f[11]::INTEGER, f[12]::INTEGER, f[13]::BIGINT, f[14])
            LOOP
                IF v_ok IS NULL AND x.tag NOT LIKE 'EV\_%' THEN
                    v_ok := x.tag = 'HELD' OR (x.tag = 'REPLAY' AND x.status IN ('HELD', 'CONFIRMED'));
                END IF;
                x.capacity := v_n;
                RETURN NEXT x;
            END LOOP;
            v_failed := v_failed OR NOT COALESCE(v_ok, FALSE);
        END LOOP;
        IF v_failed AND p_mode = 'ALL_OR_NOTHING' THEN
            RAISE EXCEPTION USING ERRCODE = 'SB001', MESSAGE = 'all or nothing: undo the holds';
        END IF;
    EXCEPTION WHEN SQLSTATE 'SB001' THEN
        -- the block's writes are undone; the rows answered stay
        NULL;
    END;
END;
$$;

-- Holds of many students in one call and one transaction (the holds of concurrent threads, combined by
-- the store): the n-th element of every array is the n-th hold, answered as hold answers it with
-- p_waitlist FALSE and p_no_wait TRUE, every row with capacity = n (from 1). p_now_micros: microseconds
-- since the epoch, NULL for the database clock. The caller orders the holds by tenant, then student,
-- so that two batches take the students' locks, the only ones a batch waits for, in one order. A hold
-- answered RETRY wrote nothing; the caller asks for it again on its own once this call has committed.
-- Each hold is decided under its student's lock as it comes; the seats of those that take one are
-- claimed, and their bookings written, together by claim_batch at the end (a hold answers TAKEN, or
-- RETRY when its slot's free seats were gone or locked by then). Before a student's next hold is
-- decided, the seats of the holds waiting for theirs are claimed, so that it sees his earlier ones.
-- Mirrors the rules kernel: Rules.hold, once per hold of the batch (org.slotbook.core.internal.rules).
CREATE OR REPLACE FUNCTION ${prefix}hold_batch(
    p_tenants VARCHAR[], p_bookings VARCHAR[], p_requests VARCHAR[], p_slots VARCHAR[], p_students VARCHAR[],
    p_statuses VARCHAR[], p_now_micros BIGINT[], p_hold_micros BIGINT[], p_longest_micros BIGINT[],
    p_gate_held BOOLEAN[], p_max_upcoming INTEGER[], p_max_week INTEGER[], p_waitlist_cutoff_micros BIGINT[],
    p_credit_policies VARCHAR[])
RETURNS SETOF ${prefix}fact
LANGUAGE plpgsql
AS $$
DECLARE
    x       ${prefix}fact;
    -- the CLAIM rows whose seats are not claimed yet, and their students
    v_want  ${prefix}fact[];
    v_whose VARCHAR[];
    -- the positions of the holds a full slot refuses
    v_full  INTEGER[];
BEGIN
    PERFORM ${prefix}fence_check(d.t) FROM (SELECT DISTINCT unnest(p_tenants) AS t) d;
    -- The holds a full slot refuses are found together, as hold finds each (an open slot inside its
    -- booking window, no seat free or held past its deadline, no seat the gate holds for the request,
    -- no earlier answer to the request, no live booking of the student there), and answered FULL
    -- without a call of hold. Each probe stays a keyed subquery of the LATERAL (OFFSET 0): written as
    -- joins they could be planned as hash joins over whole tables before statistics exist.
    SELECT array_agg(u.i::INTEGER) INTO v_full
    FROM unnest(p_tenants, p_requests, p_slots, p_students, p_gate_held, p_now_micros)
             WITH ORDINALITY AS u(t, r, sl, st, g, nm, i)
    CROSS JOIN LATERAL (
        SELECT (s.status = 'OPEN' AND c.now < s.ends_at
                AND (s.opens_at IS NULL OR c.now >= s.opens_at) AND (s.closes_at IS NULL OR c.now < s.closes_at)
                AND NOT EXISTS (SELECT 1 FROM ${prefix}slot_seat f
                                WHERE f.tenant_id = u.t AND f.slot_id = u.sl AND f.status IN ('FREE', 'HELD')
                                  AND (CASE WHEN f.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE f.held_until END)
                                      <= c.now)
                AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b WHERE b.tenant_id = u.t AND b.request_id = u.r)
                AND NOT EXISTS (SELECT 1 FROM ${prefix}waiter w WHERE w.tenant_id = u.t AND w.request_id = u.r)
                AND NOT EXISTS (SELECT 1 FROM ${prefix}booking l
                                WHERE l.tenant_id = u.t AND l.slot_id = u.sl AND l.student_id = u.st
                                  AND (l.status = 'CONFIRMED' OR (l.status = 'HELD' AND c.now < l.held_until))))
                   AS full
        FROM (SELECT COALESCE('epoch'::TIMESTAMPTZ + u.nm * INTERVAL '1 microsecond', clock_timestamp()) AS now) c,
             ${prefix}slot s
        WHERE s.tenant_id = u.t AND s.slot_id = u.sl AND NOT COALESCE(u.g, FALSE)
        OFFSET 0) z
    WHERE z.full;
    FOR i IN 1 .. COALESCE(array_length(p_bookings, 1), 0) LOOP
        IF i = ANY (v_full) THEN
            RETURN NEXT ${prefix}fact_of('FULL', capacity => i);
            CONTINUE;
        END IF;
        -- a student's next hold is decided on his earlier ones: their seats and bookings first
        IF p_tenants[i] || chr(31) || p_students[i] = ANY (v_whose) THEN
            RETURN QUERY SELECT * FROM ${prefix}claim_batch(p_tenants, v_want);
            v_want := NULL;
            v_whose := NULL;
        END IF;
        FOR x IN SELECT * FROM ${prefix}hold(p_tenants[i], p_bookings[i], p_requests[i], p_slots[i], p_students[i],
                                             p_statuses[i],
                                             'epoch'::TIMESTAMPTZ + p_now_micros[i] * INTERVAL '1 microsecond',
                                             p_hold_micros[i], p_longest_micros[i], p_gate_held[i], FALSE,
                                             p_max_upcoming[i], p_max_week[i], p_waitlist_cutoff_micros[i],
                                             p_credit_policies[i], TRUE)
        LOOP
            x.capacity := i;
            IF x.tag = 'CLAIM' THEN
                v_want := v_want || x;
                v_whose := v_whose || (p_tenants[i] || chr(31) || p_students[i])::VARCHAR;
            ELSE
                RETURN NEXT x;
            END IF;
        END LOOP;
    END LOOP;
    IF array_length(v_want, 1) > 0 THEN
        RETURN QUERY SELECT * FROM ${prefix}claim_batch(p_tenants, v_want);
    END IF;
END;
$$;

